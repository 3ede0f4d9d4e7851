"""Where a running bot rebuilds its index: one thread of its own, at the lowest CPU priority,
reporting its progress and stopping at the next batch when the bot shuts down.

A rebuild embeds passages for seconds to minutes with every core it can get; the questions
asked meanwhile must not wait for it. On Linux a thread's nice value is its own (setpriority
on its thread id), and the threads the embedder's OpenMP runtime starts from that thread
inherit it, so the scheduler gives a question's threads the cores first and the rebuild what
is left. Elsewhere the thread runs at normal priority (logged once). Raising a nice value needs
no privilege; lowering it again would, which is why rebuilds get a thread of their own instead
of lowering a shared worker of the default executor for good.

A thread cannot be interrupted, and Python waits for it at exit: a bot stopped during a
half-hour backfill would hang until it finished. So the embedder a build uses checks
:attr:`BackgroundBuilds.stopping` before each batch; a cancelled :meth:`BackgroundBuilds.run`
sets it, the build raises :class:`BuildStopped` within one batch, and the vectors embedded so
far are kept (:func:`rag.ingest.build.load_or_build`), so the next start embeds only the rest.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from langchain_core.embeddings import Embeddings

from rag.search.embeddings import embedder_identity

logger = logging.getLogger(__name__)

LOWEST = 19
"""The lowest priority a nice value gives (Linux: weight 15 against 1024 at nice 0)."""

T = TypeVar("T")


def lower_this_thread(nice: int = LOWEST) -> bool:
    """Give the calling thread (and threads it starts later) the nice value ``nice``."""
    try:
        tid = threading.get_native_id()
        current = os.getpriority(os.PRIO_PROCESS, tid)
        if current < nice:
            os.setpriority(os.PRIO_PROCESS, tid, nice)
    except (OSError, AttributeError) as error:
        logger.info("index rebuilds run at normal priority (%s)", error)
        return False
    return True


class BuildStopped(Exception):
    """The bot is shutting down: the build gave up at a batch boundary."""


class BackgroundBuilds:
    """One low-priority thread that runs rebuilds, one at a time."""

    def __init__(self, nice: int = LOWEST) -> None:
        self.stopping = threading.Event()
        self._executor = ThreadPoolExecutor(
            max_workers=1,
            thread_name_prefix="citebot-index-build",
            initializer=lower_this_thread,
            initargs=(nice,),
        )

    async def run(self, work: Callable[[], T]) -> T:
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, work)
        except asyncio.CancelledError:
            self.stopping.set()  # the build still runs: it stops at its next batch
            self._executor.shutdown(wait=False, cancel_futures=True)
            raise

    def join(self) -> None:
        """Wait for the build under way, if any (a stopped one ends within a batch)."""
        self._executor.shutdown(wait=True)


class Watched(Embeddings):
    """Passes through to ``inner`` (same identity, so the same cached vectors); before each
    batch checks ``stopping``, after it reports it to ``on_batch`` (the backfill's progress)."""

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
        if self.stopping is not None and self.stopping.is_set():
            raise BuildStopped
        vectors = self.inner.embed_documents(texts)
        if self.on_batch is not None:
            self.on_batch(len(texts))
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)
