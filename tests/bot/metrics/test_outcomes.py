"""What the asker got, as the metrics count it: every way a question ends maps to one outcome
(help and small talk to none), counted under the platform that asked it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.answering import Answering
from bot.metrics.exposition import Metrics
from bot.ports import Origin
from rag import GenerationError
from rag.messages import refusal_text
from rag.problems import Problem
from rag.results import Answer, Provenance, Refusal, Result, Unverified
from tests.bot.test_answering import HIT, ORIGIN, _Answerer, _Review, _Thread

ANSWER = Answer("退费怎么算？", "退费按剩余课时计算[1]。", (HIT,), timings_ms={"retrieve": 4.0})
DRAFT = Unverified("退费怎么算？", "六级[1]。", (Problem("ungrounded_number", "x"),), (HIT,))
REFUSAL = Refusal("退费怎么算？", refusal_text("zh"), ())


def count(metrics: Metrics, name: str, **labels: str) -> float:
    return metrics.registry.get_sample_value(name, labels) or 0.0


@pytest.mark.parametrize(
    ("result", "review", "outcome"),
    [
        (ANSWER, True, "answered"),
        (REFUSAL, True, "refused"),
        (DRAFT, True, "to_review"),
        (DRAFT, False, "refused"),  # no review desk: the asker was refused
        (GenerationError("HTTP 503", retryable=True, attempts=4), True, "failed"),
        (RuntimeError("a bug"), True, "failed"),
    ],
)
async def test_each_way_a_question_ends_is_one_outcome(
    result: Result | Exception, review: bool, outcome: str
) -> None:
    metrics = Metrics(platforms=["slack"])
    answering = Answering(
        _Answerer(result), review=_Review() if review else None, watch=metrics.questions("slack")
    )
    await answering.answer("e1", ORIGIN, _Thread())
    assert count(metrics, "citebot_questions_total", platform="slack", outcome=outcome) == 1
    assert count(metrics, "citebot_questions_total", platform="slack", outcome="failed") == (
        1 if outcome == "failed" else 0
    )
    seconds = "citebot_question_duration_seconds_count"
    assert count(metrics, seconds, platform="slack", outcome=outcome) == 1


async def test_a_thread_that_cannot_be_reached_is_a_failed_question() -> None:
    metrics = Metrics(platforms=["feishu"])
    answering = Answering(_Answerer(ANSWER), watch=metrics.questions("feishu"))
    await answering.answer("e1", ORIGIN, _Thread(unreachable=True))
    assert count(metrics, "citebot_questions_total", platform="feishu", outcome="failed") == 1


@pytest.mark.parametrize("text", ["  ", "谢谢"])
async def test_help_and_small_talk_are_no_question(text: str) -> None:
    metrics = Metrics(platforms=["slack"])
    answering = Answering(_Answerer(RuntimeError("not asked")), watch=metrics.questions("slack"))
    await answering.answer("e1", Origin("c", "t", "m", "u", "im", text, "all"), _Thread())
    assert count(metrics, "citebot_questions_total", platform="slack", outcome="failed") == 0
    asked = [
        count(metrics, "citebot_questions_total", platform="slack", outcome=o)
        for o in ("answered", "refused", "to_review", "failed")
    ]
    assert asked == [0, 0, 0, 0]


async def test_only_a_freshly_computed_answer_times_its_stages() -> None:
    cached = Answer(
        ANSWER.question,
        ANSWER.text,
        ANSWER.hits,
        timings_ms={"cache": 1.0},
        provenance=Provenance(cached_at=datetime(2026, 1, 5, tzinfo=UTC)),
    )
    metrics = Metrics(platforms=["slack"])
    for result in (ANSWER, cached):
        answering = Answering(_Answerer(result), watch=metrics.questions("slack"))
        await answering.answer("e1", ORIGIN, _Thread())
    assert count(metrics, "citebot_answer_cache_lookups_total", result="miss") == 1
    assert count(metrics, "citebot_answer_cache_lookups_total", result="hit") == 1
    stage = "citebot_answer_stage_duration_seconds_sum"
    assert count(metrics, stage, stage="retrieve") == pytest.approx(0.004)
