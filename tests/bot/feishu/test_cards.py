"""Feishu cards built from results: JSON 2.0, updatable, people's text never as markdown."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bot.feishu.cards import (
    answer_cards,
    markdown,
    mention,
    pieces,
    refusal_cards,
    text_cards,
)
from rag import Answer, Chunk, Hit, Provenance, Refusal
from tests.fakes.feishu_api import card_problem

REFUND = Chunk(source="policies/refund.md", text="按剩余课时退费。", n=0, heading=("三、退费",))
LEAVE = Chunk(source="hr/leave.md", text="年假 10 天。", n=2, title="假期制度")


def _answer(text: str, **kwargs: object) -> Answer:
    hits = (Hit(REFUND, score=0.9, rank=1), Hit(LEAVE, score=0.7, rank=2))
    return Answer("退费怎么算？", text, hits, **kwargs)  # type: ignore[arg-type]


def _valid(card: dict[str, object]) -> None:
    assert card_problem(card, json.dumps(card, ensure_ascii=False)) is None
    assert card["config"] == {"update_multi": True}


def test_an_answer_has_one_button_per_cited_source() -> None:
    [card] = answer_cards(_answer("按剩余课时退费 [1]，年假另计 [2]。"), "zh")
    _valid(card)
    elements = card["body"]["elements"]
    assert elements[0] == {
        "tag": "div",
        "text": {"tag": "plain_text", "content": "按剩余课时退费 [1]，年假另计 [2]。"},
    }
    buttons = [e for e in elements if e["tag"] == "button"]
    assert [b["text"]["content"] for b in buttons] == ["[1] refund.md · 三、退费", "[2] 假期制度"]
    value = buttons[0]["behaviors"][0]["value"]
    assert (value["k"], value["n"], value["c"], value["h"]) == (
        "source",
        1,
        "policies/refund.md#0",
        REFUND.hash[:16],
    )


def test_answer_text_is_never_markdown() -> None:
    [card] = answer_cards(_answer("<at id=all></at> [link](http://x) [1]"), "en")
    kinds = {e["tag"] for e in card["body"]["elements"]}
    assert "markdown" not in kinds


def test_a_long_answer_is_split_and_the_buttons_come_last() -> None:
    text = ("第一段很长。" * 700 + "\n") * 3 + "结论 [1]"
    cards = answer_cards(_answer(text), "zh", notice="你的问题太长")
    assert len(cards) > 1
    for card in cards:
        _valid(card)
    assert cards[0]["body"]["elements"][0]["tag"] == "markdown"
    assert all(e["tag"] != "button" for c in cards[:-1] for e in c["body"]["elements"])
    assert any(e["tag"] == "button" for e in cards[-1]["body"]["elements"])
    shown = "".join(
        e["text"]["content"] for c in cards for e in c["body"]["elements"] if e["tag"] == "div"
    )
    assert shown.replace("\n", "") == text.replace("\n", "")


def test_a_reviewed_answer_names_the_reviewer_as_a_mention() -> None:
    at = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
    provenance = Provenance(reviewed_by="ou_reviewer", reviewed_at=at)
    [card] = answer_cards(_answer("按剩余课时退费 [1]。", provenance=provenance), "zh")
    last = card["body"]["elements"][-1]
    assert last["tag"] == "markdown"
    assert "<at id=ou_reviewer></at>" in last["content"]
    assert "2026-03-01 09:30 UTC" in last["content"]


def test_a_refusal_carries_the_ask_a_human_button() -> None:
    ask = {"tag": "button", "text": {"tag": "plain_text", "content": "问同事"}}
    refusal = Refusal("问题", "资料里没有这方面的规定。", ())
    [card] = refusal_cards(refusal, "zh", ask_human=ask)
    _valid(card)
    assert card["body"]["elements"][-1] is ask


def test_text_cards_and_pieces() -> None:
    [card] = text_cards("正在查资料…")
    _valid(card)
    assert pieces("a\nb", 10) == ["a\nb"]
    assert pieces("x" * 25, 10) == ["x" * 10, "x" * 10, "x" * 5]
    assert markdown("by x")["content"] == "by x"
    assert mention("ou_x1") == "<at id=ou_x1></at>"
    assert mention("ou_x></at><at id=all") == "ou_x></at><at id=all"
