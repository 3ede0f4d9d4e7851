"""Markdown from the model becomes valid Slack mrkdwn; splitting never loses a character; a
Slack message becomes the plain question the answer core sees."""

from __future__ import annotations

import pytest

from bot.slack.mrkdwn import clean_question, escape, split_text, to_mrkdwn, unescape
from rag.questions import normalize_question


def test_escapes_only_the_three_control_characters_ampersand_first() -> None:
    assert escape("a & b < c > d \"'") == "a &amp; b &lt; c &gt; d \"'"
    assert escape("&lt;") == "&amp;lt;"


def test_model_text_cannot_inject_mentions_or_links() -> None:
    assert to_mrkdwn("<!channel> <@U1> <https://evil|x>") == (
        "&lt;!channel&gt; &lt;@U1&gt; &lt;https://evil|x&gt;"
    )


def test_bold_italic_strike_and_headings_convert() -> None:
    assert to_mrkdwn("**退费**按*剩余*课时 ~~不~~") == "*退费*按_剩余_课时 ~不~"
    assert to_mrkdwn("## Refunds\ntext") == "*Refunds*\ntext"


def test_bullets_and_numbered_lists_render() -> None:
    assert to_mrkdwn("- one [1]\n* two [2]\n1. three") == "• one [1]\n• two [2]\n1. three"


def test_markdown_links_become_slack_links_and_citations_stay() -> None:
    text = "See [the policy](https://intra.example.com/refund?a=1&b=2) [1]."
    assert to_mrkdwn(text) == "See <https://intra.example.com/refund?a=1&amp;b=2|the policy> [1]."


def test_code_is_kept_verbatim_but_escaped() -> None:
    assert to_mrkdwn("run `a **b** <c>` now") == "run `a **b** &lt;c&gt;` now"


def test_multiplication_stars_are_not_italics() -> None:
    assert to_mrkdwn("4800 * 5% * 2") == "4800 * 5% * 2"


@pytest.mark.parametrize("limit", [16, 100, 3000])
def test_split_pieces_fit_and_join_to_the_input(limit: int) -> None:
    text = ("退费按剩余课时计算[1]。" * 300) + ("Refunds &amp; <https://x.io|link> ok. " * 100)
    pieces = split_text(text, limit)
    assert "".join(pieces) == text
    assert all(len(piece) <= limit for piece in pieces)


def test_split_prefers_paragraph_boundaries() -> None:
    text = "a" * 50 + "\n\n" + "b" * 50
    assert split_text(text, 80) == ["a" * 50 + "\n\n", "b" * 50]


def test_split_never_cuts_an_entity_or_link() -> None:
    text = "x" * 30 + "&amp;" + "<https://example.com/a|b>" + "y" * 40
    for piece in split_text(text, 33):
        assert not piece.endswith(("&", "&a", "&am", "&amp"))
        assert piece.count("<") == piece.count(">")


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


def test_a_mention_and_a_dm_of_one_question_share_a_cache_key() -> None:
    # The edge strips Slack's markup; the cache key is made from what is left.
    for asked in ("<@U0BOT> 口语课一共有几级？", "<@U0BOT|citebot> 口语课一共有几级"):
        assert normalize_question(clean_question(asked)) == normalize_question("口语课一共有几级？")


def test_unescape_undoes_escape() -> None:
    text = "a & b < c > d &lt;"
    assert unescape(escape(text)) == text
