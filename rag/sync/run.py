"""One sync of one source: what changed since the cursor, what is gone, into DOCS_DIR.

    changed(cursor) + live()     -> fetch: new ids, ids whose modified time, place or title differ
                                 -> remove: ids written before that are no longer live
    fetch each (a progress bar)  -> Gone / Forbidden: the file is removed (never kept stale)
                                 -> any other error: the last good copy stays, the reason is
                                    listed, the next sync tries again
    state (cursor, files, last)  -> INDEX_DIR/sync/<name>.json

A source that cannot be listed at all (credentials refused, server down after the retries)
changes nothing on disk: every last good copy stays. Nothing is indexed here; the running
bot's refresher (or ``rag index``) re-indexes the changed files as for any edit of DOCS_DIR.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from tqdm import tqdm

from rag.http.retry import http_reason
from rag.sync import files
from rag.sync.source import Document, Entry, Forbidden, Gone, Source, SourceError
from rag.sync.state import LastSync, SourceState, Synced, load_state, save_state

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Summary:
    source: str
    last: LastSync

    @property
    def changed_files(self) -> bool:
        return bool(self.last.added or self.last.changed or self.last.removed)

    def line(self) -> str:
        """``hr-wiki: 3 added, 1 changed, 0 removed, 1 failed (Leave: HTTP 500); 9 API calls``."""
        last = self.last
        if last.outcome == "failed":
            return f"{self.source}: failed, kept the last good copy: {last.error}"
        counts = (
            f"{self.source}: {last.added} added, {last.changed} changed, "
            f"{last.removed} removed, {len(last.failed)} failed"
        )
        if last.failed:
            counts += " (" + "; ".join(f"{doc}: {why}" for doc, why in last.failed[:5])
            counts += ", …)" if len(last.failed) > 5 else ")"
        return f"{counts}; {last.calls} API calls, {last.seconds:.1f} s"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


async def sync_source(
    source: Source,
    docs_dir: Path,
    index_dir: Path,
    *,
    taken: Mapping[str, str] | None = None,
    progress: bool = False,
) -> Summary:
    """``taken``: paths other sources wrote (path -> their name), never overwritten."""
    started = time.perf_counter()
    state = load_state(index_dir, source.name)
    state.kind = source.kind
    try:
        changes = await source.changed(state.cursor)
        live = {entry.id: entry for entry in await source.live()}
    except Exception as error:  # noqa: BLE001 - any listing failure keeps every copy
        why = str(error) if isinstance(error, SourceError) else f"{http_reason(error)}: {error}"
        logger.warning("sync %s failed; kept the last good copy: %s", source.name, why)
        state.last = LastSync(_now(), "failed", error=why, calls=_calls(source))
        state.last.seconds = round(time.perf_counter() - started, 3)
        save_state(index_dir, source.name, state)
        return Summary(source.name, state.last)
    last = LastSync(_now(), "ok")
    for gone in [key for key in state.documents if key not in live]:
        files.remove(docs_dir, state.documents.pop(gone).path)
        last.removed += 1
    wanted = _wanted(state, changes.entries, live)
    writer = _Writer(source, docs_dir, state, dict(taken or {}), last)
    with tqdm(total=len(wanted), desc=source.name, unit="doc", disable=not progress) as bar:
        for entry in wanted:
            await writer.fetch(entry)
            bar.update(1)
    state.cursor = changes.cursor
    last.outcome = "partial" if last.failed else "ok"
    last.calls = _calls(source)
    last.seconds = round(time.perf_counter() - started, 3)
    state.last = last
    save_state(index_dir, source.name, state)
    return Summary(source.name, last)


def _wanted(state: SourceState, changed: tuple[Entry, ...], live: dict[str, Entry]) -> list[Entry]:
    """Changed since the cursor, plus anything live that differs from what was written (a page
    moved into a space, one whose fetch failed last time)."""
    wanted = {e.id: e for e in changed if e.id in live and _differs(state, e)}
    wanted |= {e.id: e for e in live.values() if _differs(state, e)}
    return sorted(wanted.values(), key=lambda entry: entry.id)


def _differs(state: SourceState, entry: Entry) -> bool:
    stored = state.documents.get(entry.id)
    return stored is None or (stored.modified, stored.where) != (entry.modified, entry.where)


class _Writer:
    def __init__(
        self,
        source: Source,
        docs_dir: Path,
        state: SourceState,
        taken: dict[str, str],
        last: LastSync,
    ) -> None:
        self.source = source
        self.docs_dir = docs_dir
        self.state = state
        self.taken = taken
        self.last = last

    async def fetch(self, entry: Entry) -> None:
        """Fetch and write one document; what happens is counted in ``last``."""
        stored = self.state.documents.get(entry.id)
        try:
            document = await self.source.fetch(entry)
        except (Gone, Forbidden) as error:
            if stored is not None:
                files.remove(self.docs_dir, self.state.documents.pop(entry.id).path)
                self.last.removed += 1
            logger.info("sync %s: %s dropped: %s", self.source.name, entry.id, error)
            return
        except Exception as error:  # noqa: BLE001 - one document's failure keeps its copy
            self._failed(stored.path if stored else entry.id, error)
            return
        try:
            self._write(document, stored, entry.where)
        except OSError as error:
            self._failed(document.title, error)

    def _write(self, document: Document, stored: Synced | None, where: str) -> None:
        path = self._path(document)
        files.write(self.docs_dir, path, files.render(document, self.source.name))
        if stored is not None and stored.path != path:
            files.remove(self.docs_dir, stored.path)  # renamed or moved: the old name goes
        self.state.documents[document.id] = Synced(path, document.modified, where)
        if stored is None:
            self.last.added += 1
        else:
            self.last.changed += 1

    def _path(self, document: Document) -> str:
        """The stable path, unless another document holds it: then ``title (id).md``."""
        path = files.document_path(self.source.kind, document)
        holders = {s.path: key for key, s in self.state.documents.items()}
        owner = holders.get(path)
        if (owner is not None and owner != document.id) or path in self.taken:
            path = files.document_path(self.source.kind, document, suffix=f" ({document.id})")
        return path

    def _failed(self, what: str, error: Exception) -> None:
        why = str(error) if isinstance(error, SourceError) else http_reason(error)
        logger.warning("sync %s: %s failed (kept the last copy): %s", self.source.name, what, why)
        self.last.failed.append((what, why))


def _calls(source: Source) -> int:
    counter: Callable[[], int] | None = getattr(source, "api_calls", None)
    return counter() if counter is not None else 0
