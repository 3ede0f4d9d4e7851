"""Results survive a trip through stored JSON; anything unreadable is one CodecError."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from rag.cache.codec import VERSION, CodecError, decode, encode
from rag.chunks import Chunk
from rag.problems import Problem
from rag.results import Answer, Hit, Provenance, Refusal, Unverified
from tests.rag.factories import LEVELS_TEXT, REFUND_TEXT, policy_hits

WHEN = datetime(2026, 12, 3, 5, 0, 0, 123456, tzinfo=UTC)


def full_hit() -> Hit:
    chunk = Chunk(
        source="courses/levels.md",
        text=LEVELS_TEXT,
        n=3,
        heading=("课程体系", "一、级别设置"),
        start=17,
        section=2,
        title="课程体系",
        link="https://wiki.example.com/levels",
        doc_id="levels",
    )
    return Hit(chunk, score=0.81, lexical=0.42, dense=None, rank=2)


def roundtrip(raw: str) -> Any:
    """As a store would: through a JSON string."""
    return decode(raw)[0]


def result_to_json(result: Any, *, created_at: datetime | None = None) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(encode(result, created_at=created_at))
    return data


def result_from_json(data: Any) -> Any:
    return decode(json.dumps(data, ensure_ascii=False))[0]


def test_answer_roundtrips_with_every_chunk_field_and_review_provenance() -> None:
    answer = Answer(
        "口语课一共有几级？",
        "口语课共分四个级别 [1]。",
        (full_hit(), *policy_hits()),
        timings_ms={"retrieve": 3.5, "generate": 812.0},
        provenance=Provenance(reviewed_by="U123", reviewed_at=WHEN),
    )
    assert roundtrip(encode(answer, created_at=WHEN)) == answer


def test_refusal_keeps_its_reason_and_unverified_its_draft_and_problems() -> None:
    refusal = Refusal("雅思保过班多少钱？", "文档里没有答案。", (), reason="model_refused")
    problem = Problem(
        "ungrounded_number",
        "数字「80%」在所引资料 [1] 里找不到，也不是回答中算式的结果",
        "按 80% 退 [1]。",
        refs=(1,),
        note="回答说「80%」，所引资料 [1] 写的是「5%」",
    )
    unverified = Unverified("退费怎么算？", "按 80% 退 [1]。", (problem,), tuple(policy_hits()))
    assert roundtrip(encode(refusal)) == refusal
    assert roundtrip(encode(unverified)) == unverified
    assert result_to_json(unverified)["text"] == "按 80% 退 [1]。"


def test_the_askers_language_roundtrips_and_older_values_take_the_questions() -> None:
    answer = Answer("What does 退费 cover?", "退费按剩余课时计算 [1]。", tuple(policy_hits()))
    assert answer.language == "en"
    english_draft = Unverified("退费怎么算？", "Refunds: 80% [1].", (), (), language="zh")
    assert roundtrip(encode(english_draft)).language == "zh"
    older = result_to_json(answer)
    del older["language"]
    assert result_from_json(older) == answer
    with pytest.raises(CodecError, match="language"):
        result_from_json({**older, "language": "fr"})


def test_value_is_versioned_and_says_when_it_was_created_in_utc() -> None:
    local = datetime(2026, 12, 3, 13, 0, tzinfo=timezone(timedelta(hours=8)))
    data = result_to_json(Answer("q", "a [1]", tuple(policy_hits())), created_at=local)
    assert data["v"] == VERSION
    assert data["created_at"] == "2026-12-03T05:00:00+00:00"
    _, first_given = decode(json.dumps(data))
    assert first_given == datetime(2026, 12, 3, 5, 0, tzinfo=UTC)


def valid() -> dict[str, Any]:
    return result_to_json(Answer("q", REFUND_TEXT, (full_hit(),)), created_at=WHEN)


def broken(change: str) -> Any:
    data = json.loads(json.dumps(valid()))
    hit = data["hits"][0]
    if change == "version":
        data["v"] = 2
    elif change == "no version":
        del data["v"]
    elif change == "bool version":
        data["v"] = True
    elif change == "verdict":
        data["verdict"] = "maybe"
    elif change == "no text":
        del data["text"]
    elif change == "hits not a list":
        data["hits"] = {"0": hit}
    elif change == "hit not an object":
        data["hits"] = ["policies/refund.md#0"]
    elif change == "score is text":
        hit["score"] = "0.8"
    elif change == "rank is bool":
        hit["rank"] = True
    elif change == "heading is text":
        hit["heading"] = "课程体系"
    elif change == "bad time":
        data["created_at"] = "yesterday"
    elif change == "naive time":
        data["created_at"] = "2026-12-03T05:00:00"
    elif change == "no time":
        del data["created_at"]
    elif change == "refusal without reason":
        data["verdict"] = "refusal"
    elif change == "not an object":
        return ["v", 1]
    return data


@pytest.mark.parametrize(
    "change",
    [
        "version",
        "no version",
        "bool version",
        "verdict",
        "no text",
        "hits not a list",
        "hit not an object",
        "score is text",
        "rank is bool",
        "heading is text",
        "bad time",
        "naive time",
        "no time",
        "refusal without reason",
        "not an object",
    ],
)
def test_unreadable_value_raises_codec_error(change: str) -> None:
    with pytest.raises(CodecError):
        result_from_json(broken(change))


def test_codec_error_names_the_field() -> None:
    with pytest.raises(CodecError, match=r"^value\.answer\.hits\.0\.score: [^\n]*$"):
        result_from_json(broken("score is text"))


@pytest.mark.parametrize("raw", [b"{broken", b"\xff\xfe", b""])
def test_damaged_bytes_are_one_codec_error_too(raw: bytes) -> None:
    with pytest.raises(CodecError):
        decode(raw)
