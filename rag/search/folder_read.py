"""DOCS_DIR against the stored manifest: which files are unchanged, without reading them.

A file whose size and modification time are those the manifest recorded keeps its stored
chunks unread: on a folder of 1,222 pages, reading and hashing every file was seconds of every
``rag ask``. Only files whose size or time changed are read; one whose content hash turns out
unchanged (touched, copied back) still keeps its chunks, and its new time is recorded.

A size and time are trusted only when the code that reads files is the one that recorded them
(:data:`READER`, a hash of the source of :mod:`rag.ingest` and :mod:`rag.chunks`): a loader
that reads a page differently must read it again. A file modified less than
:data:`SETTLE_SECONDS` before it was read gets no time recorded (a write within the same
clock tick would keep both), so the next build hashes it once more.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import rag.chunks
import rag.ingest
from rag.chunks import content_hash
from rag.ingest import loaders
from rag.ingest.documents import SourceDocument
from rag.ingest.loaders import Skipped, hidden, walk
from rag.search.progress_line import OnStage

logger = logging.getLogger(__name__)

SETTLE_SECONDS = 2.0


def _reader_identity() -> str:
    package = Path(rag.ingest.__file__ or "").parent
    sources = [*sorted(package.glob("*.py")), Path(rag.chunks.__file__ or "")]
    return content_hash("\n".join(path.read_text(encoding="utf-8") for path in sources))[:16]


READER = _reader_identity()


@dataclass(frozen=True, slots=True)
class Stat:
    size: int
    mtime_ns: int | None
    """``None`` while the file is too fresh to trust its time (see the module docstring)."""


class Stated(Protocol):
    """What a stored file says of its size and time (a manifest's or a snapshot's entry)."""

    @property
    def size(self) -> int | None: ...

    @property
    def mtime_ns(self) -> int | None: ...


@dataclass(slots=True)
class FolderRead:
    """In folder order: each file either ``unchanged`` (its stored entry holds) or a fresh
    document."""

    order: list[str] = field(default_factory=list)
    unchanged: set[str] = field(default_factory=set)
    documents: dict[str, SourceDocument] = field(default_factory=dict)
    stats: dict[str, Stat] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)


def read_folder(
    docs_dir: Path,
    stored: Mapping[str, Stated],
    *,
    trusted: bool,
    on_stage: OnStage | None = None,
) -> FolderRead:
    """``trusted``: the stored sizes and times were recorded by this :data:`READER`.
    ``on_stage`` hears how many of the files to read are read (first before the first one)."""
    root = Path(docs_dir)
    paths, walked = walk(root)
    read = FolderRead(skipped=list(walked))
    settled = time.time_ns() - int(SETTLE_SECONDS * 1e9)
    names = [path.relative_to(root).as_posix() for path in paths]
    to_read = _to_read(paths, names, stored, trusted=trusted)
    done = 0
    for path, name in zip(paths, names, strict=True):
        if name not in to_read:
            read.order.append(name)
            read.unchanged.add(name)
            continue
        if on_stage is not None:
            on_stage("reading", done, len(to_read))
        done += 1
        loaded = loaders.load_path(path, root)
        if loaded.skipped is not None:
            read.skipped.append(loaded.skipped)
        if loaded.document is None:
            continue
        read.order.append(name)
        read.documents[name] = loaded.document
        info = to_read[name]
        if info is not None:
            fresh = info.st_mtime_ns > settled
            read.stats[name] = Stat(info.st_size, None if fresh else info.st_mtime_ns)
    if on_stage is not None and done:
        on_stage("reading", done, len(to_read))
    read.skipped.sort(key=lambda item: item.path)
    for item in read.skipped:
        if not hidden(item):
            logger.warning("skipped %s: %s", item.path, item.reason)
    return read


def _to_read(
    paths: list[Path], names: list[str], stored: Mapping[str, Stated], *, trusted: bool
) -> dict[str, os.stat_result | None]:
    """The files whose size or time is not the stored one, with what they are now (``None``:
    gone since the walk; :func:`rag.ingest.loaders.load_path` says why)."""
    to_read: dict[str, os.stat_result | None] = {}
    for path, name in zip(paths, names, strict=True):
        try:
            info: os.stat_result | None = os.stat(path)
        except OSError:
            info = None
        entry = stored.get(name)
        if info is None or not trusted or entry is None or not _same(entry, info):
            to_read[name] = info
    return to_read


def _same(entry: Stated, info: os.stat_result) -> bool:
    return entry.mtime_ns is not None and (entry.size, entry.mtime_ns) == (
        info.st_size,
        info.st_mtime_ns,
    )
