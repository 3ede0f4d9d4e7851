"""The pipeline a long-running process serves: the same pipeline, re-bound to each new index.

:meth:`LivePipeline.swap` makes a copy of the pipeline bound to the new index (and to its
threshold, unless MIN_SCORE fixes one: a lexical-only index gates with the lexical threshold,
the full index with the hybrid one) and replaces the served one in a single assignment.
``answer()`` takes the served pipeline once, so a question in flight is answered, cached and
keyed entirely on the index it started with — the index version stays in every cache key.
Cache, chat model and reviewed answers are shared by all copies.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from rag.language import Language
from rag.pipeline import DEFAULT_SCOPE, Pipeline, Withdrawal
from rag.progress import Progress
from rag.results import Answer, Result
from rag.search.index import Index
from rag.serving.background import BackgroundBuilds
from rag.serving.holder import IndexHolder, Mode


class LivePipeline:
    def __init__(
        self, pipeline: Pipeline, *, mode: Mode = "full", fixed_min_score: float | None = None
    ) -> None:
        self._pipeline = pipeline
        self.fixed_min_score = fixed_min_score
        self.holder = IndexHolder(pipeline.index, mode=mode)
        self.follower: Callable[[], Awaitable[None]] | None = None
        """What keeps this pipeline current while it serves (a refresher's ``run``)."""
        self.builds: BackgroundBuilds | None = None
        """Where its rebuilds run: a process stopping waits for the one under way to stop at
        once (:meth:`finish_builds`), keeping what it embedded."""
        self.sources: Callable[[], list[dict[str, Any]]] | None = None
        """Each SOURCES_FILE source's last sync, for ``/healthz``; ``None``: no sync runs."""

    @property
    def index(self) -> IndexHolder:
        """The live view: citation buttons and the review desk always see the served index."""
        return self.holder

    @property
    def pipeline(self) -> Pipeline:
        return self._pipeline

    async def answer(
        self,
        question: str,
        *,
        scope: str = DEFAULT_SCOPE,
        progress: Progress | None = None,
        language: Language | None = None,
    ) -> Result:
        return await self._pipeline.answer(
            question, scope=scope, progress=progress, language=language
        )

    async def withdraw(self, withdrawal: Withdrawal) -> Answer | None:
        """See :meth:`Pipeline.withdraw`; the cache and reviewed answers are shared by every
        index the pipeline was bound to."""
        return await self._pipeline.withdraw(withdrawal)

    def swap(self, index: Index, *, mode: Mode, documents: int | None = None) -> None:
        min_score = self.fixed_min_score if self.fixed_min_score is not None else index.min_score
        self._pipeline = replace(self._pipeline, index=index, min_score=min_score)
        self.holder.swap(index, mode=mode, documents=documents)

    async def follow(self) -> None:
        """Runs until cancelled: the edge starts it with the app and cancels it at shutdown."""
        if self.follower is not None:
            await self.follower()

    async def finish_builds(self) -> None:
        """After ``follow()`` was cancelled: wait until the build under way has stopped (not
        waiting for its batch under way) and saved what it embedded."""
        if self.builds is not None:
            self.builds.stopping.set()
            await asyncio.to_thread(self.builds.join)

    async def aclose(self) -> None:
        await self._pipeline.aclose()
