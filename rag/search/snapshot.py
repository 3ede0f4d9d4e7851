"""``INDEX_DIR/snapshot-<key>.json``: the manifest as columns, for opening an unchanged folder.

Validating ``manifest.json`` record by record (36k passages, each a pydantic model) took half a
second of every ``rag ask``, and building a :class:`~rag.chunks.Chunk` from each record as much
again. An unchanged folder needs none of that: its files' sizes and times, their passages and
the digests the index version is made of. The snapshot holds exactly those, one JSON list per
field, read with one ``json.loads``.

It is keyed by a hash of the manifest's bytes, so a snapshot is only ever read beside the
manifest it was made from: a manifest written by another process (or another version of this
code, which writes none) simply has no snapshot, and the manifest is validated as before. A
missing or damaged snapshot only costs that; only the current one is kept.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.chunks import Chunk
from rag.lifecycle import Lifecycle
from rag.search.manifest import MANIFEST_FORMAT, Manifest

logger = logging.getLogger(__name__)

PREFIX = "snapshot-"
FORMAT = 3
"""2: passages keep their table's header row (``table_head``); a format-1 snapshot lost it, so
it is passed over and the manifest read instead. 3: and their document's lifecycle."""
_COLUMNS = (
    "text", "n", "heading", "start", "section", "title", "link", "doc_id", "about", "table_head",
    "lifecycle",
)  # fmt: skip


def manifest_key(raw: bytes) -> str:
    """Which snapshot belongs to the manifest whose bytes are ``raw``."""
    return hashlib.blake2b(raw, digest_size=8).hexdigest()


@dataclass(frozen=True, slots=True)
class FileRow:
    """One file as the manifest recorded it (its passages are in the snapshot's columns)."""

    hash: str
    size: int | None
    mtime_ns: int | None
    digest: str
    chunks: int


@dataclass(frozen=True, slots=True)
class Snapshot:
    version: str
    embedder: str | None
    gate: str
    reader: str | None
    splitter: tuple[int, int]
    files: dict[str, FileRow]
    """In folder order."""
    columns: dict[str, list[Any]]
    keys: list[str]
    """Each passage's vector key."""

    def chunks(self) -> list[Chunk]:
        sources = self._sources()
        c = self.columns
        rows = zip(
            sources, c["text"], c["n"], c["heading"], c["start"], c["section"], c["title"],
            c["link"], c["doc_id"], c["about"], c["table_head"], c["lifecycle"], strict=True,
        )  # fmt: skip
        return [
            Chunk(
                source, text, n, tuple(heading), start, section, title, link, doc_id, about, head,
                Lifecycle.from_row(life),
            )
            for source, text, n, heading, start, section, title, link, doc_id, about, head, life
            in rows
        ]  # fmt: skip

    def _sources(self) -> Iterator[str]:
        for name, row in self.files.items():
            for _ in range(row.chunks):
                yield name


def write_snapshot(index_dir: Path, raw: bytes, manifest: Manifest) -> None:
    """The snapshot of ``manifest`` (whose bytes on disk are ``raw``), atomically; the others
    go. Only a manifest whose every file has its digest has one (:mod:`rag.search.build`
    records them)."""
    files: list[list[Any]] = []
    columns: dict[str, list[Any]] = {name: [] for name in (*_COLUMNS, "key")}
    for name, entry in manifest.files.items():
        if entry.digest is None:
            return
        files.append(
            [name, entry.hash, entry.size, entry.mtime_ns, entry.digest, len(entry.chunks)]
        )
        for kept in entry.chunks:
            for column in _COLUMNS:
                columns[column].append(getattr(kept, column))
            columns["key"].append(kept.vector_key)
    if any(key is None for key in columns["key"]):
        return
    body = {
        "format": FORMAT,
        "manifest_format": MANIFEST_FORMAT,
        "version": manifest.version,
        "embedder": manifest.embedder,
        "gate": manifest.gate,
        "reader": manifest.reader,
        "splitter": list(manifest.splitter),
        "files": files,
        "columns": columns,
    }
    path = index_dir / f"{PREFIX}{manifest_key(raw)}.json"
    partial = path.with_name(f"{path.stem}.{os.getpid()}.partial")
    try:
        partial.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
        partial.replace(path)
    except OSError as error:
        logger.warning("could not store the index snapshot in %s: %s", index_dir, error)
        return
    for old in index_dir.glob(f"{PREFIX}*.json"):
        if old != path:
            old.unlink(missing_ok=True)


def read_snapshot(index_dir: Path, raw: bytes) -> Snapshot | None:
    """The snapshot of the manifest whose bytes are ``raw``; ``None`` when there is none or it
    cannot be used (then the manifest itself is read)."""
    path = index_dir / f"{PREFIX}{manifest_key(raw)}.json"
    try:
        body = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        logger.info("index snapshot %s is unreadable (%s); reading the manifest", path, error)
        return None
    try:
        return _snapshot(body)
    except (KeyError, TypeError, ValueError) as error:
        logger.info("index snapshot %s is unusable (%s); reading the manifest", path, error)
        return None


def _snapshot(body: dict[str, Any]) -> Snapshot | None:
    if (body.get("format"), body.get("manifest_format")) != (FORMAT, MANIFEST_FORMAT):
        return None
    files = {
        str(name): FileRow(str(hash_), size, mtime_ns, str(digest), int(count))
        for name, hash_, size, mtime_ns, digest, count in body["files"]
    }
    columns = body["columns"]
    keys = columns.pop("key")
    total = sum(row.chunks for row in files.values())
    if any(len(columns[name]) != total for name in _COLUMNS) or len(keys) != total:
        msg = f"columns of unequal length for {total} passages"
        raise ValueError(msg)
    size, overlap = body["splitter"]
    return Snapshot(
        version=str(body["version"]),
        embedder=body["embedder"],
        gate=str(body["gate"]),
        reader=body["reader"],
        splitter=(int(size), int(overlap)),
        files=files,
        columns=columns,
        keys=keys,
    )
