"""``INDEX_DIR/manifest.json``: what the stored index was built from, as a validated record.

The build's identity (index version, splitter, embedder, gate) and, for every file, its content
hash and its chunks, so an unchanged file is never split again. The version field is stored as
``format`` (the name the manifest had before records were versioned), so an INDEX_DIR written by
earlier code reads as it is. A manifest that is missing, unreadable or of another format means
a clean rebuild, said in one log line, never a crash.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from pydantic import ConfigDict, Field, ValidationError, field_validator

from rag.chunks import Chunk
from rag.lifecycle import Lifecycle
from rag.storage.records import Record, check_version, validation_error

logger = logging.getLogger(__name__)

MANIFEST_FILE = "manifest.json"
MANIFEST_FORMAT = 1


class StoredChunk(Record):
    """A :class:`~rag.chunks.Chunk` without its source (the file it is stored under)."""

    text: str
    n: int
    heading: tuple[str, ...]
    start: int
    section: int
    title: str
    link: str | None
    doc_id: str
    about: str = ""
    table_head: str = ""
    lifecycle: tuple[str, ...] | None = None
    """:meth:`Lifecycle.as_row` (``None``: a current document with no date, as every passage
    was stored before documents had a lifecycle)."""
    vector_key: str | None = None
    """:attr:`Chunk.vector_key` as computed when split (reading a passage's first tokens costs
    seconds at 36k passages); used only by the code that computed it (``Manifest.reader``)."""

    @classmethod
    def of(cls, chunk: Chunk) -> StoredChunk:
        return cls(
            text=chunk.text,
            n=chunk.n,
            heading=chunk.heading,
            start=chunk.start,
            section=chunk.section,
            title=chunk.title,
            link=chunk.link,
            doc_id=chunk.doc_id,
            about=chunk.about,
            table_head=chunk.table_head,
            lifecycle=None if (row := chunk.lifecycle.as_row()) is None else tuple(row),
            vector_key=chunk.vector_key,
        )

    def chunk(self, source: str) -> Chunk:
        return Chunk(
            source=source,
            text=self.text,
            n=self.n,
            heading=self.heading,
            start=self.start,
            section=self.section,
            title=self.title,
            link=self.link,
            doc_id=self.doc_id,
            about=self.about,
            table_head=self.table_head,
            lifecycle=Lifecycle.from_row(self.lifecycle),
        )


class StoredFile(Record):
    hash: str
    """The document's content hash when it was split."""
    chunks: tuple[StoredChunk, ...]
    size: int | None = None
    mtime_ns: int | None = None
    """Size and modification time when it was read: unchanged, the file is not read again
    (:mod:`rag.search.folder_read`). ``None`` in manifests written before, or for a file
    modified just before it was read."""
    digest: str | None = None
    """Its chunks as the index version sees them (:func:`rag.search.index.chunks_digest`),
    so an unchanged folder's version is not computed from 36k passages again. ``None`` in
    manifests written before."""


class Manifest(Record):
    model_config = ConfigDict(populate_by_name=True)

    v: int = Field(default=MANIFEST_FORMAT, alias="format")
    version: str
    """The index version (:func:`rag.search.index.index_version`)."""
    splitter: tuple[int, int]
    """Chunk size and overlap."""
    embedder: str | None
    gate: str
    files: dict[str, StoredFile] = Field(default_factory=dict)
    """By source path."""
    reader: str | None = None
    """The code that read the files (:data:`rag.search.folder_read.READER`): the stored sizes
    and times are trusted only by the same code."""

    @field_validator("v")
    @classmethod
    def _readable(cls, version: int) -> int:
        return check_version(version, MANIFEST_FORMAT)

    def dump(self) -> str:
        return self.model_dump_json(by_alias=True)


def read_manifest(index_dir: Path) -> Manifest | None:
    """The stored manifest; ``None`` (logged once, the index is then rebuilt) when there is none
    or it cannot be used."""
    raw = manifest_bytes(index_dir)
    return None if raw is None else parse_manifest(index_dir, raw)


def manifest_bytes(index_dir: Path) -> bytes | None:
    """The stored manifest as it is on disk (``None``: none, or unreadable, logged)."""
    path = index_dir / MANIFEST_FILE
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        logger.warning("%s is unreadable (%s); the index will be rebuilt", path, error)
        return None


def parse_manifest(index_dir: Path, raw: bytes) -> Manifest | None:
    """``raw`` (the bytes of ``index_dir``'s manifest) validated; ``None`` when unusable."""
    path = index_dir / MANIFEST_FILE
    try:
        return Manifest.model_validate_json(raw)
    except ValidationError as error:
        reason = validation_error(MANIFEST_FILE, error)
        logger.warning("%s is unreadable (%s); the index will be rebuilt", path, reason)
        return None


def write_manifest(index_dir: Path, manifest: Manifest) -> bytes:
    """Atomically: a reader sees the old manifest or the new one, never half of one. Returns
    the bytes written."""
    path = index_dir / MANIFEST_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    raw = manifest.dump().encode("utf-8")
    partial.write_bytes(raw)
    partial.replace(path)
    return raw


def manifest_version(index_dir: Path) -> str | None:
    """Only the index version, cheaply (polled by every bot sharing INDEX_DIR)."""
    try:
        version = json.loads((index_dir / MANIFEST_FILE).read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return version if isinstance(version, str) else None
