"""The index on disk: a manifest under INDEX_DIR, rebuilt incrementally from DOCS_DIR.

``manifest.json`` (:mod:`rag.search.manifest`) records the index version, the splitter, embedder
and gate it was built with, and each file's size, time and content hash with its chunks; vectors
live in the embedding cache (:class:`rag.search.embeddings.CachedEmbeddings`), the lexical
index beside them (:mod:`rag.search.lexical_store`). :func:`load_or_build` reads only files
whose size or time changed (:mod:`rag.search.folder_read`), splits only those whose hash
changed and embeds only chunks whose text changed, so an unchanged folder of 36k passages opens
in about a second; a damaged manifest means a rebuild, never a crash.

The report (:class:`BuildReport`) is returned beside the index, not stored on it: the index
knows nothing of how it was built. A lexical result (``embed_at_most``) is the index
``embeddings=None`` builds, so a command answering before the vectors exist answers exactly as
``EMBEDDINGS=none`` and a bot's lexical phase do.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from langchain_core.embeddings import Embeddings

from rag.chunks import Chunk
from rag.ingest.documents import SourceDocument
from rag.ingest.loaders import Skipped
from rag.ingest.splitter import Splitter
from rag.search.calibration import load_calibration
from rag.search.embedding_run import OnProgress, embed_chunks
from rag.search.embeddings import CachedEmbeddings, embedder_identity
from rag.search.folder_read import READER, FolderRead, read_folder
from rag.search.gate import gate_for
from rag.search.index import Index, Matrix, index_version
from rag.search.lexical import LexicalIndex
from rag.search.lexical_store import open_lexical
from rag.search.manifest import Manifest, StoredChunk, StoredFile, read_manifest, write_manifest
from rag.search.progress_line import ProgressLine

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What :func:`load_or_build` did, for the ``rag index`` summary."""

    files: int
    skipped: tuple[Skipped, ...]
    chunked_files: int
    """Files split this run (new or changed); the others reused their stored chunks."""
    chunks: int
    embedded: int
    reused: int
    seconds: float
    version: str
    previous_version: str | None
    missing: int = 0
    """Passages left without a vector: the index is lexical (see ``embed_at_most``)."""
    vectors: int = 0
    """Distinct vectors the passages need (passages with the same text share one)."""


def index_documents(
    docs: Sequence[SourceDocument],
    *,
    embeddings: Embeddings | None,
    splitter: Splitter | None = None,
    min_score: float | None = None,
    progress: bool = False,
) -> Index:
    """Split, embed and index ``docs`` in memory, nothing stored (tests, eval, a lexical start)."""
    splitter = splitter or Splitter()
    chunks = [chunk for doc in docs for chunk in splitter.split(doc)]
    return Index.from_chunks(
        chunks, embeddings=embeddings, splitter=splitter, min_score=min_score, progress=progress
    )


def load_or_build(
    docs_dir: Path,
    index_dir: Path,
    *,
    embeddings: Embeddings | None,
    min_score: float | None = None,
    progress: bool = False,
    on_progress: OnProgress | None = None,
    store: bool = True,
    embed_at_most: int | None = None,
) -> tuple[Index, BuildReport]:
    """The index over ``docs_dir``: loaded from ``index_dir`` when still valid, else rebuilt
    incrementally (module docstring), and the report of what was loaded, split and embedded.

    ``min_score``: MIN_SCORE, else a calibration stored for the gate, else its default.
    ``on_progress`` hears how the embedding goes (``progress``: a line on stderr);
    ``store=False`` writes no manifest (other processes read one as a new version).
    ``embed_at_most``: when more passages lack a vector, none is embedded and the index is
    the lexical one (the manifest written only when there was none); the report's ``missing``
    says how many lack one.
    """
    started = time.perf_counter()
    splitter = Splitter()
    identity = None if embeddings is None else embedder_identity(embeddings)
    gate = gate_for(identity)
    manifest = read_manifest(index_dir)
    shape = (splitter.chunk_size, splitter.chunk_overlap)
    reusable = manifest.files if manifest is not None and manifest.splitter == shape else {}
    trusted = manifest is not None and manifest.reader == READER
    read = read_folder(docs_dir, reusable, trusted=trusted)
    split = _split(read, reusable, splitter, trusted=trusted)
    cached = None if embeddings is None else CachedEmbeddings(embeddings, index_dir)
    missing = 0 if cached is None else cached.missing(split.keys)
    if cached is not None and embed_at_most is not None and missing > embed_at_most:
        # Lexical: stored only as the first record of the folder (no index announced yet), so
        # the next run reads no file again; over a full index it would announce a new version.
        cached, identity, gate = None, None, gate_for(None)
        store = store and manifest is None
    vectors = None if cached is None else _vectors(split, cached, progress, on_progress)
    version = index_version(split.chunks, splitter, identity, gate)
    built = Manifest(
        version=version, splitter=shape, embedder=identity, gate=gate.identity, files=split.files
    ).model_copy(update={"reader": READER})
    if store and built != manifest:
        write_manifest(index_dir, built)
    calibration = load_calibration(index_dir, gate.identity)
    if min_score is None and calibration is not None:
        min_score = calibration.min_score
    lexical = _lexical(index_dir, split, shape)
    index = Index(
        split.chunks,
        vectors=vectors,
        embeddings=cached,
        version=version,
        gate=gate,
        min_score=min_score,
        lexical=lexical,
    )
    previous = None if manifest is None else manifest.version
    return index, _report(read, split, cached, version, previous, missing, started)


def _lexical(index_dir: Path, split: _Split, shape: tuple[int, int]) -> LexicalIndex:
    """The files' content hashes, the splitter and the code that read them fix every chunk's
    text: hashing those is a fraction of hashing 36k chunks."""
    basis = "\n".join(f"{name}\t{entry.hash}" for name, entry in split.files.items())
    return open_lexical(index_dir, split.chunks, basis=f"{READER}\n{shape}\n{basis}")


def _report(
    read: FolderRead,
    split: _Split,
    cached: CachedEmbeddings | None,
    version: str,
    previous: str | None,
    missing: int,
    started: float,
) -> BuildReport:
    return BuildReport(
        files=len(read.order),
        skipped=tuple(read.skipped),
        chunked_files=split.chunked_files,
        chunks=len(split.chunks),
        embedded=0 if cached is None else cached.embedded,
        reused=0 if cached is None else cached.reused,
        seconds=time.perf_counter() - started,
        version=version,
        previous_version=previous,
        missing=missing if cached is None else 0,
        vectors=len(set(split.keys)),
    )


def _vectors(
    split: _Split, cached: CachedEmbeddings, progress: bool, on_progress: OnProgress | None
) -> Matrix:
    if on_progress is not None or not progress:
        return embed_chunks(split.chunks, cached, keys=split.keys, on_progress=on_progress)
    line = ProgressLine(sys.stderr)
    try:
        return embed_chunks(split.chunks, cached, keys=split.keys, on_progress=line)
    finally:
        line.close()


@dataclass(frozen=True, slots=True)
class _Split:
    chunks: list[Chunk]
    files: dict[str, StoredFile]
    """The manifest's ``files``: each document's hash and chunks."""
    chunked_files: int
    keys: list[str]
    """Each chunk's :attr:`~rag.chunks.Chunk.vector_key`."""


def _split(
    read: FolderRead, stored: Mapping[str, StoredFile], splitter: Splitter, *, trusted: bool
) -> _Split:
    """Every file's chunks, in folder order: stored ones when it was not read again or its
    content hash is unchanged, else split. ``trusted``: the stored vector keys were computed
    by this code."""
    split = _Split([], {}, 0, [])
    chunked = 0
    for name in read.order:
        entry = read.unchanged.get(name)
        doc = read.documents.get(name)
        if entry is None and doc is not None:
            entry = stored.get(name)
            if entry is None or entry.hash != doc.hash:
                entry = StoredFile(
                    hash=doc.hash, chunks=tuple(StoredChunk.of(c) for c in splitter.split(doc))
                )
                chunked += 1
            stat = read.stats.get(name)
            if stat is not None:
                entry = entry.model_copy(update={"size": stat.size, "mtime_ns": stat.mtime_ns})
        assert entry is not None
        chunks = [kept.chunk(name) for kept in entry.chunks]
        if not trusted or any(kept.vector_key is None for kept in entry.chunks):
            # Recorded by other code (or before keys were stored): computed again, and stored.
            entry = entry.model_copy(update={"chunks": tuple(StoredChunk.of(c) for c in chunks)})
        split.files[name] = entry
        split.chunks.extend(chunks)
        split.keys.extend(kept.vector_key or "" for kept in entry.chunks)
    return _Split(split.chunks, split.files, chunked, split.keys)
