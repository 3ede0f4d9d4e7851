"""Results render to Block Kit Slack accepts: limits kept, nothing dropped, sources clickable."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bot.console import render_plain
from bot.slack import source_ref
from bot.slack.limits import MESSAGE_TEXT
from bot.slack.reply import (
    SOURCE_ACTION_PREFIX,
    render_answer,
    render_refusal,
    source_label,
)
from rag.chunks import Chunk
from rag.messages import refusal_text
from rag.results import Answer, Hit, Provenance, Refusal
from tests.fakes.slack_blocks import block_problems

REFUND = Chunk(
    source="policies/refund.md",
    text="退费按剩余课时计算，收取 5% 手续费。",
    n=3,
    heading=("退费与转班制度", "三、退费计算口径"),
    title="退费与转班制度",
    link="https://intra.example.com/refund",
)
LEVELS = Chunk(source="courses/levels.md", text="口语课共四级。", n=0, heading=("课程体系",))


def _hits() -> tuple[Hit, ...]:
    return (Hit(REFUND, score=0.83), Hit(LEVELS, score=0.41))


def _buttons(blocks: list[dict[str, object]]) -> list[dict[str, object]]:
    return [
        element
        for block in blocks
        if block["type"] == "actions"
        for element in block["elements"]  # type: ignore[attr-defined]
    ]


def test_answer_gets_one_button_per_cited_source_with_a_small_id() -> None:
    answer = Answer("退费怎么算", "退费按剩余课时计算[1]。", _hits())
    [message] = render_answer(answer, "zh")
    [button] = _buttons(message.blocks)
    assert button["text"] == {
        "type": "plain_text",
        "text": "[1] 退费与转班制度 · 三、退费计算口径",
        "emoji": False,
    }
    assert button["action_id"] == f"{SOURCE_ACTION_PREFIX}1"
    ref = source_ref.decode(str(button["value"]))
    assert ref is not None
    assert ref.chunk_id == "policies/refund.md#3"
    assert REFUND.text not in str(button["value"])
    assert block_problems(message.blocks) == []


def test_text_fallback_is_always_set() -> None:
    [message] = render_answer(Answer("q", "**退费**按课时[1]。", _hits()), "zh")
    assert message.text == "*退费*按课时[1]。"


def test_long_answer_is_split_into_valid_messages_and_nothing_is_lost() -> None:
    body = "".join(f"第{i}条：退费按剩余课时计算，手续费 5%[1]。\n" for i in range(400))
    messages = render_answer(Answer("q", body, _hits()), "zh")
    assert len(messages) > 1
    assert "".join(message.text for message in messages) == body
    for message in messages:
        assert len(message.text) <= MESSAGE_TEXT
        assert block_problems(message.blocks) == []
    assert _buttons(messages[-1].blocks)
    assert not _buttons(messages[0].blocks)


def test_button_labels_are_cut_to_75_characters_and_action_ids_unique() -> None:
    long = Chunk(source="a.md", text="x", n=1, heading=("H" * 200,), title="T" * 90)
    hits = tuple(
        Hit(Chunk(source="a.md", text="x", n=i, heading=("H" * 200,)), 0.5) for i in range(3)
    )
    assert len(source_label(1, Hit(long, 0.5))) == 75
    [message] = render_answer(Answer("q", "a[1] b[2] c[3]", hits), "en")
    ids = [button["action_id"] for button in _buttons(message.blocks)]
    assert len(set(ids)) == 3
    assert block_problems(message.blocks) == []


def test_cached_and_reviewed_answers_say_so() -> None:
    when = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
    provenance = Provenance(cached_at=when, reviewed_by="U0REVIEW", reviewed_at=when)
    [message] = render_answer(Answer("q", "ok [1]", _hits(), provenance=provenance), "en")
    line = str([block for block in message.blocks if block["type"] == "context"][-1])
    assert "cached answer · first given" in line
    assert "2026-12-01 09:30 UTC" in line
    assert "reviewed by <@U0REVIEW>" in line


def test_an_answer_ends_with_feedback_buttons_that_carry_what_a_vote_records() -> None:
    provenance = Provenance(cached_at=datetime(2026, 12, 1, tzinfo=UTC))
    [message] = render_answer(
        Answer("年假几天？", "5 天 [1]", _hits(), provenance=provenance), "zh"
    )
    last = message.blocks[-1]
    assert last["type"] == "context_actions"
    [buttons] = last["elements"]
    assert buttons["type"] == "feedback_buttons"
    up, down = (
        json.loads(buttons[side]["value"]) for side in ("positive_button", "negative_button")
    )
    assert (up["v"], down["v"]) == ("up", "down")
    assert (up["q"], up["f"]) == ("年假几天？", "cache")
    assert up["s"] == [_hits()[0].chunk.id]


def test_refusal_is_the_fixed_sentence_with_review_buttons() -> None:
    refusal = Refusal("年假几天", refusal_text("zh"), _hits())
    extra = [
        {
            "type": "button",
            "action_id": "ask_human",
            "text": {"type": "plain_text", "text": "转人工"},
        }
    ]
    [message] = render_refusal(refusal, extra)
    assert message.text == refusal_text("zh")
    assert _buttons(message.blocks) == extra
    assert not any(SOURCE_ACTION_PREFIX in str(b) for b in message.blocks)


def test_plain_rendering_lists_cited_sources_with_file_heading_and_link() -> None:
    text = render_plain(Answer("q", "退费按剩余课时计算[1]。", _hits()), "zh")
    assert "[1] 退费与转班制度 — policies/refund.md › 退费与转班制度 › 三、退费计算口径" in text
    assert "https://intra.example.com/refund" in text
    assert "courses/levels.md" not in text
