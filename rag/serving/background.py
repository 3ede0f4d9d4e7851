"""Where a running bot rebuilds its index: one thread of its own, one build at a time,
reporting its progress and stopping at once when the bot shuts down.

The passages a build embeds go to the embedder's own low-priority thread
(:class:`rag.search.handles.SeparateIndexing`); the build's Python work stays at normal
priority here, since a low-priority thread holding Python's GIL would make questions wait.

A thread cannot be interrupted, and Python waits for it at exit: a bot stopped during a
half-hour backfill would hang until it finished. So the embedder a build uses watches
:attr:`BackgroundBuilds.stopping`; a cancelled :meth:`BackgroundBuilds.run` sets it, the build
raises :class:`BuildStopped` at once (:class:`Watched` does not wait for the batch under way),
and the vectors embedded before are kept (:func:`rag.search.build.load_or_build`), so the next
start embeds only the rest.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

from langchain_core.embeddings import Embeddings

from rag.search.embedding_run import BuildStopped
from rag.search.embeddings import embedder_identity
from rag.search.progress_line import OnStage, Stage

T = TypeVar("T")

__all__ = ["BackgroundBuilds", "BuildStopped", "Watched", "stoppable", "switching"]


class BackgroundBuilds:
    """One thread that runs rebuilds, one at a time, and stops them when cancelled."""

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="citebot-build")

    async def run(self, work: Callable[[], T]) -> T:
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, switching(work))
        except asyncio.CancelledError:
            self.stopping.set()  # the build still runs: it stops within a poll, saving
            self._executor.shutdown(wait=False, cancel_futures=True)
            raise

    def join(self) -> None:
        """Wait for the build under way, if any (a stopped one ends as soon as it has saved
        what it embedded)."""
        self._executor.shutdown(wait=True)


SWITCH_SECONDS = 0.001
"""Python's GIL switch interval while a build runs (default 0.005): the build's Python work
(reading, splitting, the lexical index: seconds at 10k passages) shares the GIL with the event
loop, which waits up to this long each time it wants it back."""


def switching(work: Callable[[], T]) -> Callable[[], T]:
    """``work`` with a shorter GIL switch interval while it runs (process-wide, restored)."""

    def run() -> T:
        before = sys.getswitchinterval()
        sys.setswitchinterval(min(before, SWITCH_SECONDS))
        try:
            return work()
        finally:
            sys.setswitchinterval(before)

    return run


def stoppable(on_stage: OnStage, stopping: threading.Event) -> OnStage:
    """``on_stage``, raising :class:`BuildStopped` once ``stopping`` is set: reading and
    counting a new folder take seconds before anything is embedded, and a stop asked for
    meanwhile is taken at the next file (nothing embedded, nothing to keep)."""

    def staged(stage: Stage, done: int, total: int) -> None:
        if stopping.is_set():
            raise BuildStopped
        on_stage(stage, done, total)

    return staged


STOP_POLL_SECONDS = 0.1
"""How often a batch under way looks whether it should stop."""


class Watched(Embeddings):
    """Passes through to ``inner`` (same identity, so the same cached vectors); before each
    batch checks ``stopping``, after it reports it to ``on_batch`` (the backfill's progress).

    A stop does not wait for the batch under way: at the lowest CPU priority on a busy machine
    one batch took a minute, and a person pressing Ctrl-C expects seconds. The batch runs on a
    daemon thread of its own; when ``stopping`` is set meanwhile, :class:`BuildStopped` is
    raised at once (what earlier batches embedded is saved by the build) and the batch's
    vectors, when they come, are dropped — nor does the process wait for them to exit.
    """

    def __init__(
        self,
        inner: Embeddings,
        *,
        on_batch: Callable[[int], None] | None = None,
        stopping: threading.Event | None = None,
    ) -> None:
        self.inner = inner
        self.identity = embedder_identity(inner)
        self.on_batch = on_batch
        self.stopping = stopping

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if self.stopping is None:
            vectors = self.inner.embed_documents(texts)
        else:
            vectors = self._unless_stopped(self.stopping, texts)
        if self.on_batch is not None:
            self.on_batch(len(texts))
        return vectors

    def _unless_stopped(self, stopping: threading.Event, texts: list[str]) -> list[list[float]]:
        if stopping.is_set():
            raise BuildStopped
        batch: Future[list[list[float]]] = Future()

        def embed() -> None:
            try:
                batch.set_result(self.inner.embed_documents(texts))
            except BaseException as error:  # noqa: BLE001 - the build decides
                batch.set_exception(error)

        threading.Thread(target=embed, name="citebot-embed-batch", daemon=True).start()
        while True:
            try:
                return batch.result(STOP_POLL_SECONDS)
            except FutureTimeout:
                if stopping.is_set():
                    raise BuildStopped from None

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)
