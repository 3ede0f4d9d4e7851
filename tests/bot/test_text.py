"""Slack message text becomes the plain question the answer core sees."""

from __future__ import annotations

import pytest

from bot.text import clean_question, cut


def test_mention_tokens_are_removed() -> None:
    assert clean_question("<@U0CITEBOT> 退费怎么算？") == "退费怎么算？"
    assert clean_question("hey <@U0CITEBOT|citebot>, how many leave days?") == (
        "hey , how many leave days?"
    )


def test_channel_and_link_tokens_become_plain_text() -> None:
    text = (
        "see <#C0123|hr-policies> and <https://example.com/leave|the leave page> or <https://x.io>"
    )
    assert clean_question(text) == "see #hr-policies and the leave page or https://x.io"


def test_mailto_and_special_mentions_are_plain() -> None:
    assert clean_question("<!here> mail <mailto:hr@example.com|hr@example.com>") == (
        "mail hr@example.com"
    )


def test_slack_entities_are_unescaped() -> None:
    assert clean_question("R&amp;D budget &lt; 5%?") == "R&D budget < 5%?"


def test_only_a_mention_is_an_empty_question() -> None:
    assert clean_question("  <@U0CITEBOT>  \n ") == ""


def test_control_characters_are_dropped_but_lines_kept() -> None:
    assert clean_question("退费\x00怎么\u200b算\n第二行\x07") == "退费怎么算\n第二行"


def test_cut_reports_whether_it_cut() -> None:
    assert cut("abc", 5) == ("abc", False)
    assert cut("a" * 10, 4) == ("aaaa", True)
    with pytest.raises(ValueError, match=r"limit \(0\)"):
        cut("a", 0)
