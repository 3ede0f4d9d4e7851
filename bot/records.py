"""Keeps one record per answered question for ``rag report``, without ever delaying an answer.

:class:`RecordingAnswerer` wraps the answerer: the result goes back to the asker at once and
its record (:func:`rag.question_record`: hash, verdict, sources, timings, and the text of a
refused or unverified question unless RECORD_QUESTIONS=false) is written in the background.
A store that fails (Redis away, disk full) loses records, never answers; it is logged once
until it works again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from redis.exceptions import RedisError

from bot.ports import Answerer, SourceIndex, Withdrawer
from rag import (
    Answer,
    Language,
    Progress,
    RecordStore,
    RedisUnavailable,
    Result,
    ReviewRecord,
    Withdrawal,
    question_record,
)

logger = logging.getLogger(__name__)

STORE_ERRORS = (RedisUnavailable, RedisError, OSError, TimeoutError)
"""How a record store fails: Redis away or slow (the guarded client says RedisUnavailable), a
disk full or read-only."""

DRAIN_SECONDS = 2.0
"""At shutdown, how long to wait for records still being written."""


def _reason(error: BaseException) -> str:
    """What failed, in one line: a skipped Redis says why it was skipped (its cause)."""
    cause = error.__cause__ or error
    return f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__


class ClosableAnswerer(Answerer, Protocol):
    async def aclose(self) -> None: ...


class Background:
    """Writes to a record store as tasks of their own; failures are logged once per outage."""

    def __init__(self, store: RecordStore) -> None:
        self.store = store
        self._tasks: set[asyncio.Task[None]] = set()
        self._failing = False

    def start(self, write: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(self._guarded(write))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        # Cancelled before it ran (the loop shutting down mid-answer): the record is lost, and
        # closing the write says so to Python too, instead of "coroutine never awaited".
        task.add_done_callback(lambda done: write.close() if done.cancelled() else None)

    async def _guarded(self, write: Coroutine[Any, Any, None]) -> None:
        try:
            await write
        except STORE_ERRORS as error:
            # Expected while a dependency is away: one line per outage, no traceback. A Redis
            # outage was already a warning of the guarded client's; this only adds what it costs.
            if not self._failing:
                level = logging.INFO if isinstance(error, RedisUnavailable) else logging.WARNING
                logger.log(
                    level,
                    "question records are not being kept (%s): %s",
                    self.store.where,
                    _reason(error),
                )
            self._failing = True
            return
        if self._failing:
            logger.info("question records are kept again (%s)", self.store.where)
        self._failing = False

    def review_writer(self) -> Callable[[ReviewRecord], None]:
        """What the review desk calls with each applied decision."""
        return lambda record: self.start(self.store.add_review(record))

    async def drain(self) -> None:
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=DRAIN_SECONDS)


class RecordingAnswerer:
    def __init__(
        self,
        inner: ClosableAnswerer,
        writer: Background,
        *,
        record_questions: bool,
        log_questions: bool,
    ) -> None:
        self.inner = inner
        self.writer = writer
        self.record_questions = record_questions
        self.log_questions = log_questions

    @property
    def index(self) -> SourceIndex:
        return self.inner.index

    async def answer(
        self,
        question: str,
        *,
        scope: str = "all",
        progress: Progress | None = None,
        language: Language | None = None,
    ) -> Result:
        result = await self.inner.answer(
            question, scope=scope, progress=progress, language=language
        )
        record = question_record(
            result,
            scope=scope,
            index_version=self.inner.index.version,
            record_questions=self.record_questions,
            log_questions=self.log_questions,
        )
        self.writer.start(self.writer.store.add_question(record))
        return result

    async def withdraw(self, withdrawal: Withdrawal) -> Answer | None:
        """Passed on to the pipeline (two 👎: :mod:`bot.feedback`)."""
        if not isinstance(self.inner, Withdrawer):
            return None
        return await self.inner.withdraw(withdrawal)

    async def aclose(self) -> None:
        await self.writer.drain()
        await self.inner.aclose()
