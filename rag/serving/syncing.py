"""A running bot syncs SOURCES_FILE's wikis every SYNC_SECONDS, beside the index refresh.

    at start, then every SYNC_SECONDS:  sync every source (only what changed is fetched)
        -> files under DOCS_DIR changed -> wake the refresher: it re-indexes them at its next
           tick, as for any edit of DOCS_DIR (also with REFRESH_SECONDS=0)
        -> another process holds the sync lock -> skip this round (it syncs for both)

A failed sync keeps every last good copy and is logged; ``/healthz`` shows each source's last
sync and its errors (:meth:`Syncing.describe`, from the state the sync keeps in INDEX_DIR).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from rag.http.retry import HttpRetry
from rag.observer import UNOBSERVED, Observer
from rag.sync.sources_file import SourcesFile
from rag.sync.state import describe
from rag.sync.sync_all import SyncBusy, sync_sources

logger = logging.getLogger(__name__)


class Syncing:
    def __init__(
        self,
        sources: SourcesFile,
        *,
        docs_dir: Path,
        index_dir: Path,
        every_seconds: float,
        on_change: Callable[[], None],
        retry: HttpRetry | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        observer: Observer = UNOBSERVED,
    ) -> None:
        self.sources = sources
        self.docs_dir = docs_dir
        self.index_dir = index_dir
        self.every_seconds = every_seconds
        self.on_change = on_change
        self.retry = retry
        self.sleep = sleep
        self.observer = observer
        """Hears how each source's sync ended (the bot's metrics)."""

    async def run(self) -> None:
        while True:
            try:
                await self.once()
            except Exception:
                logger.exception("sync of %s failed", self.sources.path)
            await self.sleep(self.every_seconds)

    async def once(self) -> bool:
        """One round; ``True`` when a file under DOCS_DIR changed."""
        try:
            summaries = await sync_sources(
                self.sources, docs_dir=self.docs_dir, index_dir=self.index_dir, retry=self.retry
            )
        except SyncBusy:
            logger.info("another process is syncing %s; skipped this round", self.sources.path)
            return False
        for summary in summaries:
            log = logger.warning if summary.last.outcome != "ok" else logger.info
            log("sync %s", summary.line())
            self.observer.synced(summary.source, summary.last.outcome, summary.last.seconds)
        changed = any(summary.changed_files for summary in summaries)
        if changed:
            self.on_change()
        return changed

    def describe(self) -> list[dict[str, Any]]:
        return describe(self.index_dir, [source.name for source in self.sources.sources])
