"""A clicked citation finds its passage now: current, moved, changed or gone."""

from __future__ import annotations

from bot.slack.source_ref import SourceRef, decode, encode
from bot.slack.source_view import find, source_message
from bot.texts import SOURCE_CHANGED
from rag.chunks import Chunk
from rag.results import Hit
from tests.fakes.slack_blocks import block_problems

A0 = Chunk(source="a.md", text="退费按剩余课时计算。", n=0, heading=("退费",), section=1)
A1 = Chunk(source="a.md", text="手续费 5%。", n=1, heading=("退费",), section=1)


def _ref(chunk: Chunk, chunk_id: str | None = None) -> SourceRef:
    ref = decode(encode(Hit(chunk, 0.8)))
    assert ref is not None
    return SourceRef(chunk_id or ref.chunk_id, ref.chunk_hash, ref.score)


def test_unchanged_chunk_is_current() -> None:
    assert find(_ref(A0), A0, [A0, A1]).state == "current"


def test_moved_chunk_is_found_by_its_hash() -> None:
    moved = Chunk(source="a.md", text=A0.text, n=5, heading=A0.heading, section=3)
    found = find(_ref(A0), None, [moved])
    assert (found.state, found.chunks) == ("current", (moved,))


def test_changed_chunk_shows_its_whole_current_section() -> None:
    edited = Chunk(source="a.md", text="退费规则已更新。", n=0, heading=("退费",), section=1)
    found = find(_ref(A0), edited, [edited, A1])
    assert (found.state, found.chunks) == ("changed", (edited, A1))
    message = source_message(1, _ref(A0), found, "zh")
    assert SOURCE_CHANGED["zh"] in str(message.blocks)
    assert block_problems(message.blocks) == []


def test_removed_document_is_gone() -> None:
    assert find(_ref(A0, "b.md#0"), None, [A0]).state == "gone"


def test_long_passages_stay_within_limits() -> None:
    huge = Chunk(source="big.md", text="字" * 9000, n=0, link="https://x.example/<a>")
    message = source_message(1, _ref(huge), find(_ref(huge), huge, [huge]), "en")
    assert block_problems(message.blocks) == []
    assert len(message.text) <= 4000


def test_the_clicker_sees_a_relevance_out_of_100_not_a_negative_score() -> None:
    weak = decode(encode(Hit(A0, -0.59)))
    assert weak is not None
    message = source_message(1, weak, find(weak, A0, [A0, A1]), "zh")
    fields = [field["text"] for block in message.blocks for field in block.get("fields", [])]
    assert "*相关度*\n28/100" in fields
    assert "-0.59" not in str(message.blocks)
