"""Markdown from the model becomes valid Slack mrkdwn; splitting never loses a character."""

from __future__ import annotations

import pytest

from bot.slack.mrkdwn import escape, split_text, to_mrkdwn


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
