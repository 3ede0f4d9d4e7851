"""Every source of SOURCES_FILE (or one), one after another, under one lock.

The lock (INDEX_DIR/sync/.lock) keeps ``rag sync`` and a running bot — or two bots on one
DOCS_DIR — from syncing at once (twice the API calls, and two writers of one file). A bot
that finds it held skips that round; the command waits for it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import aiohttp
from filelock import FileLock, Timeout

from rag.errors import CitebotError
from rag.http.retry import HttpRetry
from rag.sync.confluence import confluence_cloud, confluence_data_center
from rag.sync.feishu import feishu_wiki
from rag.sync.run import Summary, sync_source
from rag.sync.source import Source
from rag.sync.sources_file import SourceConfig, SourcesFile
from rag.sync.state import SYNC_FOLDER, load_state

Builder = Callable[[SourceConfig, aiohttp.ClientSession, HttpRetry], Source]
BUILDERS: dict[str, Builder] = {
    "confluence-cloud": confluence_cloud,
    "confluence-dc": confluence_data_center,
    "feishu-wiki": feishu_wiki,
}


class SyncBusy(CitebotError):
    """Another process is syncing these sources now."""


async def sync_sources(
    sources: SourcesFile,
    *,
    docs_dir: Path,
    index_dir: Path,
    only: str | None = None,
    retry: HttpRetry | None = None,
    progress: bool = False,
    wait_seconds: float = 0.0,
) -> list[Summary]:
    """Raises :class:`SyncBusy` when the lock is not free within ``wait_seconds``, and
    :class:`~rag.sync.sources_file.SourcesFileError` for an ``only`` the file doesn't name."""
    chosen = [sources.named(only)] if only else list(sources.sources)
    (index_dir / SYNC_FOLDER).mkdir(parents=True, exist_ok=True)
    lock = FileLock(index_dir / SYNC_FOLDER / ".lock")
    try:
        lock.acquire(timeout=wait_seconds)
    except Timeout as error:
        msg = f"another sync holds {lock.lock_file}"
        raise SyncBusy(msg) from error
    try:
        summaries = []
        async with aiohttp.ClientSession() as session:
            for config in chosen:
                source = BUILDERS[config.kind](config, session, retry or HttpRetry())
                taken = _taken(sources, config.name, index_dir)
                summaries.append(
                    await sync_source(source, docs_dir, index_dir, taken=taken, progress=progress)
                )
        return summaries
    finally:
        lock.release()


def _taken(sources: SourcesFile, name: str, index_dir: Path) -> dict[str, str]:
    """Paths the other sources wrote: a source never overwrites another's file."""
    taken = {}
    for other in sources.sources:
        if other.name != name:
            for synced in load_state(index_dir, other.name).documents.values():
                taken[synced.path] = other.name
    return taken
