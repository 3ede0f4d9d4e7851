"""Recording never costs an answer: a failing store loses records, logged once per outage."""

from __future__ import annotations

import logging

import pytest

from bot.records import Background, RecordingAnswerer
from rag import Language, Progress, Result
from rag.report.records import QuestionRecord, ReviewRecord
from rag.results import Refusal
from tests.rag.factories import policy_hits


class Index:
    version = "v1"


class Answerer:
    index = Index()

    async def answer(
        self,
        question: str,
        *,
        scope: str = "all",
        progress: Progress | None = None,
        language: Language | None = None,
    ) -> Result:
        return Refusal(question, "…", tuple(policy_hits()))

    async def aclose(self) -> None:
        return None


class Store:
    where = "test store"

    def __init__(self, *, fail: bool) -> None:
        self.fail = fail
        self.kept: list[QuestionRecord] = []

    async def add_question(self, record: QuestionRecord) -> None:
        if self.fail:
            raise OSError("disk full")
        self.kept.append(record)

    async def add_review(self, record: ReviewRecord) -> None:
        raise NotImplementedError

    async def questions(self, since: float) -> list[QuestionRecord]:
        return self.kept

    async def reviews(self, since: float) -> list[ReviewRecord]:
        return []


async def test_a_failing_store_never_fails_an_answer_and_is_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="bot.records")
    store = Store(fail=True)
    answerer = RecordingAnswerer(
        Answerer(), Background(store), record_questions=True, log_questions=False
    )
    for _ in range(3):
        assert (await answerer.answer("火星上的天气怎么样？")).verdict == "refusal"
    await answerer.aclose()
    failures = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage() for r in failures] == [
        "question records are not being kept (test store): OSError: disk full"
    ]
    assert failures[0].exc_info is None  # expected, not a bug: no traceback

    store.fail = False
    await answerer.answer("火星上的天气怎么样？")
    await answerer.aclose()
    assert [r.text for r in store.kept] == ["火星上的天气怎么样？"]
    assert store.kept[0].index_version == "v1"
    assert "kept again" in caplog.text
