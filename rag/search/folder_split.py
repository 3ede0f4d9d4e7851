"""The folder's chunks, file by file: stored ones for the files that did not change, the others
split again (:class:`~rag.ingest.splitter.Splitter`), each file with the digest of its chunks
that the index version is made of (:func:`rag.search.index.chunks_digest`).

:mod:`rag.search.folder_read` says which files changed; :func:`split_folder` turns that into
the chunks, their vector keys and the manifest's new ``files``; :func:`snapshot_split` is the
same for a folder unchanged since its snapshot (:mod:`rag.search.snapshot`), without a record
validated or a chunk hashed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rag.chunks import Chunk
from rag.ingest.splitter import Splitter
from rag.search.folder_read import FolderRead
from rag.search.manifest import StoredChunk, StoredFile
from rag.search.progress_line import OnStage
from rag.search.snapshot import Snapshot
from rag.search.versions import chunks_digest


@dataclass(frozen=True, slots=True)
class Split:
    chunks: list[Chunk]
    files: dict[str, StoredFile] | None
    """The manifest's ``files``: each document's hash and chunks; ``None`` when the folder
    was opened from its snapshot unchanged (nothing to record)."""
    chunked_files: int
    keys: list[str]
    """Each chunk's :attr:`~rag.chunks.Chunk.vector_key`."""
    digests: list[tuple[str, str]]
    """Each file's :func:`~rag.search.index.chunks_digest`, in folder order."""
    hashes: list[tuple[str, str]]
    """Each file's content hash, in folder order."""


def split_folder(
    read: FolderRead,
    stored: Mapping[str, StoredFile],
    splitter: Splitter,
    *,
    trusted: bool,
    on_stage: OnStage | None = None,
) -> Split:
    """Every file's chunks, in folder order: stored ones when it was not read again or its
    content hash is unchanged, else split. ``trusted``: the stored vector keys were computed
    by this code."""
    files: dict[str, StoredFile] = {}
    chunks: list[Chunk] = []
    keys: list[str] = []
    chunked = 0
    for name in read.order:
        doc = read.documents.get(name)
        entry = None if doc is None else stored.get(name)
        fresh = doc is not None and (entry is None or entry.hash != doc.hash)
        if doc is not None and fresh:
            if on_stage is not None:
                on_stage("splitting", chunked, len(read.documents))
            split = splitter.split(doc)
            entry = StoredFile(
                hash=doc.hash,
                chunks=tuple(StoredChunk.of(c) for c in split),
                digest=chunks_digest(split),
            )
            chunked += 1
        elif doc is None:
            entry = stored[name]
        assert entry is not None
        stat = read.stats.get(name)
        if doc is not None and stat is not None:
            entry = entry.model_copy(update={"size": stat.size, "mtime_ns": stat.mtime_ns})
        kept = [stored_chunk.chunk(name) for stored_chunk in entry.chunks]
        if not fresh and (not trusted or any(c.vector_key is None for c in entry.chunks)):
            # Recorded by other code (or before keys were stored): computed again, and stored.
            entry = entry.model_copy(update={"chunks": tuple(StoredChunk.of(c) for c in kept)})
        if entry.digest is None or (not fresh and not trusted):
            entry = entry.model_copy(update={"digest": chunks_digest(kept)})
        files[name] = entry
        chunks.extend(kept)
        keys.extend(stored_chunk.vector_key or "" for stored_chunk in entry.chunks)
    if on_stage is not None and chunked:
        on_stage("splitting", chunked, len(read.documents))
    digests = [(name, entry.digest or "") for name, entry in files.items()]
    hashes = [(name, entry.hash) for name, entry in files.items()]
    return Split(chunks, files, chunked, keys, digests, hashes)


def snapshot_split(snapshot: Snapshot) -> Split:
    """The folder as its snapshot recorded it, every file unchanged."""
    rows = snapshot.files.items()
    digests = [(name, row.digest) for name, row in rows]
    hashes = [(name, row.hash) for name, row in rows]
    return Split(snapshot.chunks(), None, 0, snapshot.keys, digests, hashes)
