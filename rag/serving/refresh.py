"""A running bot follows DOCS_DIR: scan, rebuild off the event loop, swap, tell the others.

    every POLL_SECONDS:     a version announced that this process doesn't serve (``rag index``,
                            another process) -> load it (no embedding: its vectors are cached)
    every REFRESH_SECONDS:  DOCS_DIR's fingerprint (paths, sizes, mtimes: a stat per file, no
                            reading) changed -> take the build lock -> incremental rebuild ->
                            swap -> announce; without the lock another process is building,
                            and its announcement brings the new version here

A sync that wrote to DOCS_DIR (:mod:`rag.serving.syncing`) wakes the refresher: it scans at its
next tick even when REFRESH_SECONDS is 0.

A build runs in a thread of its own, embedding at the lowest CPU priority
(:mod:`rag.serving.background`), and makes a complete new index; only then is it swapped
in (:class:`rag.serving.live.LivePipeline`), so nothing is answered from a half-built index and
questions in flight finish on the old one. A failed build keeps the served index and is logged once
(again only when the reason changes); ``/healthz`` shows the last refresh and its outcome.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from langchain_core.embeddings import Embeddings

from rag.chunks import content_hash
from rag.ingest.loaders import discover
from rag.search.build import load_or_build
from rag.search.embedding_run import OnProgress
from rag.search.embeddings import CachedEmbeddings
from rag.search.index import Index
from rag.search.vectors import VectorStore
from rag.serving.background import BackgroundBuilds, Watched
from rag.serving.coordination import Announcer, BuildLock
from rag.serving.holder import Mode, Refresh
from rag.serving.live import LivePipeline

logger = logging.getLogger(__name__)

POLL_SECONDS = 2.0
"""How often announcements are checked: ``rag index`` is served within this plus a load."""


def fingerprint(docs_dir: Path) -> str:
    """Changes when a file under DOCS_DIR is added, removed, renamed, resized or rewritten."""
    parts = []
    for path in discover(docs_dir):
        try:
            stat = os.stat(path)
        except OSError:
            continue  # removed while listing: the next scan sees it gone
        parts.append(f"{path.relative_to(docs_dir)}\t{stat.st_size}\t{stat.st_mtime_ns}")
    return content_hash("\n".join(parts))


@dataclass(frozen=True, slots=True)
class Built:
    index: Index
    mode: Mode
    documents: int
    skipped: tuple[tuple[str, str], ...] = ()


Build = Callable[[], Built]


class Refresher:
    def __init__(
        self,
        live: LivePipeline,
        build: Build,
        *,
        docs_dir: Path,
        refresh_seconds: float,
        lock: BuildLock,
        announcers: Sequence[Announcer],
        known: str | None = None,
        poll_seconds: float = POLL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        builds: BackgroundBuilds | None = None,
    ) -> None:
        self.live = live
        self.build = build
        self.builds = builds or BackgroundBuilds()
        self.docs_dir = docs_dir
        self.refresh_seconds = refresh_seconds
        self.lock = lock
        self.announcers = list(announcers)
        self.fingerprint = known
        """DOCS_DIR as the served index was built from (taken before that build started)."""
        self.poll_seconds = poll_seconds
        self.clock = clock
        self.sleep = sleep
        self._next_scan = clock() + refresh_seconds
        self._acted_on: set[str] = set()
        self._last_error: str | None = None
        self._woken = False

    async def run(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:
                logger.exception("index refresh check failed; serving %s", self.live.index.version)
            await self.sleep(self.poll_seconds)

    async def tick(self) -> None:
        for announcer in self.announcers:
            version = await announcer.latest()
            if version and version != self.live.index.version and version not in self._acted_on:
                self._acted_on.add(version)
                await self.refresh("published", exclusive=False)
        due = self.refresh_seconds > 0 and self.clock() >= self._next_scan
        if due or self._woken:
            self._woken = False
            self._next_scan = self.clock() + self.refresh_seconds
            await self.scan()

    def wake(self) -> None:
        """Scan at the next tick, whatever REFRESH_SECONDS says (a sync wrote to DOCS_DIR)."""
        self._woken = True

    async def scan(self) -> bool:
        """Rebuild if DOCS_DIR changed; ``False`` when another process holds the build lock."""
        seen = await asyncio.to_thread(fingerprint, self.docs_dir)
        if seen == self.fingerprint:
            return True
        if await self.refresh("docs changed", exclusive=True, fingerprint=seen):
            return True
        logger.info("DOCS_DIR changed; another process is rebuilding, its index will be loaded")
        return False

    async def refresh(
        self, trigger: str, *, exclusive: bool, fingerprint: str | None = None
    ) -> bool:
        if exclusive and not await self.lock.acquire():
            return False
        started = time.perf_counter()
        try:
            seen = fingerprint or await asyncio.to_thread(fingerprint_or_none, self.docs_dir)
            built = await self.builds.run(self.build)
            self.fingerprint = seen
        except Exception as error:  # noqa: BLE001 - any failed build keeps the served index
            self._failed(trigger, error, time.perf_counter() - started)
            if fingerprint is not None:
                self.fingerprint = fingerprint  # don't retry until the documents change again
            return True
        finally:
            if exclusive:
                await self.lock.release()
        if self._built(trigger, built, time.perf_counter() - started):
            await self._announce(built.index.version)
        return True

    def _built(self, trigger: str, built: Built, seconds: float) -> bool:
        previous = self.live.index.version
        changed = built.index.version != previous or built.mode != self.live.holder.state.mode
        if changed:
            self.live.swap(built.index, mode=built.mode, documents=built.documents)
        self._acted_on.add(built.index.version)
        self._last_error = None
        self.live.holder.refreshed(
            Refresh(
                at=time.time(),
                trigger=trigger,
                outcome="swapped" if changed else "unchanged",
                version=built.index.version,
                seconds=round(seconds, 3),
                skipped=built.skipped,
            )
        )
        if changed:
            logger.info(
                "index %s -> %s (%s, %d passages, %.1f s; %d files skipped)",
                previous,
                built.index.version,
                trigger,
                len(built.index),
                seconds,
                len(built.skipped),
            )
        return changed

    async def _announce(self, version: str) -> None:
        for announcer in self.announcers:
            try:
                await announcer.announce(version)
            except Exception:
                logger.warning("could not announce index %s", version, exc_info=True)

    def _failed(self, trigger: str, error: Exception, seconds: float) -> None:
        reason = f"{type(error).__name__}: {error}"
        if reason != self._last_error:
            logger.warning(
                "index refresh failed (%s); still serving %s: %s",
                trigger,
                self.live.index.version,
                reason,
            )
        self._last_error = reason
        self.live.holder.refreshed(
            Refresh(
                at=time.time(),
                trigger=trigger,
                outcome="failed",
                version=self.live.index.version,
                seconds=round(seconds, 3),
                error=reason,
            )
        )


def index_builder(
    docs_dir: Path,
    index_dir: Path,
    *,
    embeddings: Embeddings | None,
    min_score: float | None,
    on_progress: OnProgress | None = None,
    stopping: threading.Event | None = None,
    vector_store: VectorStore | None = None,
) -> Build:
    """The incremental build of :func:`rag.search.build.load_or_build`, with one embedder kept
    for every rebuild (the bundled model loads once per process); ``on_progress`` hears how
    many of the missing vectors are there (embedded, or handed over by a question's on-demand
    embedding), ``stopping`` stops the build at the next one; ``vector_store``: where the
    vectors live when not under INDEX_DIR."""
    if embeddings is not None and stopping is not None:
        embeddings = Watched(embeddings, stopping=stopping)

    def build() -> Built:
        index, report = load_or_build(
            docs_dir,
            index_dir,
            embeddings=embeddings,
            min_score=min_score,
            vector_store=vector_store,
            on_progress=on_progress,
        )
        skipped = tuple((s.path, s.reason) for s in report.skipped)
        documents = len({chunk.source for chunk in index.chunks})
        return Built(index, "full", documents, skipped)

    return build


def lexical_build(docs_dir: Path, index_dir: Path, *, min_score: float | None) -> Built:
    """Passages and the lexical index only — seconds, where embedding takes minutes — so a bot
    on a new or much-changed folder answers at once (with the lexical gate's threshold). The
    same build as ``EMBEDDINGS=none``'s, so both answer alike; it reuses and stores the lexical
    index but writes no manifest (other processes would take it for a new version)."""
    index, report = load_or_build(
        docs_dir, index_dir, embeddings=None, min_score=min_score, store=False
    )
    skipped = tuple((s.path, s.reason) for s in report.skipped)
    return Built(index, "lexical", report.files, skipped)


def vectors_missing(index_dir: Path, embeddings: Embeddings, index: Index) -> int:
    """How many of ``index``'s passages the embedding cache has no vector for (by content: a
    folder edited while the bot was down has as many vectors as passages, not the same ones)."""
    return CachedEmbeddings(embeddings, index_dir).missing(
        [chunk.vector_key for chunk in index.chunks]
    )


def fingerprint_or_none(docs_dir: Path) -> str | None:
    try:
        return fingerprint(docs_dir)
    except OSError:
        return None
