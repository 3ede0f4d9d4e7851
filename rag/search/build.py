"""The index on disk: a manifest under INDEX_DIR, rebuilt incrementally from DOCS_DIR.

``manifest.json`` (:mod:`rag.search.manifest`) records the index version, the splitter, embedder
and gate it was built with, and each file's content hash with its chunks; vectors live in the
embedding cache (:class:`rag.search.embeddings.CachedEmbeddings`). :func:`load_or_build`
re-reads only files whose size or time changed, splits only those whose hash changed and embeds
only chunks whose text changed; a damaged manifest means a rebuild, never a crash.
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
) -> tuple[Index, BuildReport]:
    """The index over ``docs_dir``: loaded from ``index_dir`` when still valid, else rebuilt,
    and the report of what was loaded, split and embedded (returned beside the index, not
    stored on it: the index knows nothing of how it was built).

    The threshold is ``min_score`` when given (MIN_SCORE), else a calibration stored next to
    the index for the same gate (``python -m rag calibrate``), else the gate's shipped default.

    Rebuilding is incremental: a file whose size and time are unchanged is not read, one whose
    content hash is unchanged is not split (:mod:`rag.search.folder_read`), the lexical index
    of unchanged passages is loaded (:mod:`rag.search.lexical_store`) and their vectors come
    from the embedding cache, so only new or changed files cost time. ``on_progress`` hears how
    the embedding goes (``progress``: a line on stderr); ``store=False`` (a lexical start
    beside a full index) writes no manifest, which other processes read as a new version.
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
    split = _split(read, reusable, splitter)
    cached = None if embeddings is None else CachedEmbeddings(embeddings, index_dir)
    vectors = None if cached is None else _vectors(split.chunks, cached, progress, on_progress)
    version = index_version(split.chunks, splitter, identity, gate)
    built = Manifest(
        version=version,
        splitter=shape,
        embedder=identity,
        gate=gate.identity,
        files=split.files,
        reader=READER,
    )
    if store and built != manifest:
        write_manifest(index_dir, built)
    calibration = load_calibration(index_dir, gate.identity)
    if min_score is None and calibration is not None:
        min_score = calibration.min_score
    index = Index(
        split.chunks,
        vectors=vectors,
        embeddings=cached,
        version=version,
        gate=gate,
        min_score=min_score,
        lexical=open_lexical(index_dir, split.chunks),
    )
    report = BuildReport(
        files=len(read.order),
        skipped=tuple(read.skipped),
        chunked_files=split.chunked_files,
        chunks=len(split.chunks),
        embedded=0 if cached is None else cached.embedded,
        reused=0 if cached is None else cached.reused,
        seconds=time.perf_counter() - started,
        version=version,
        previous_version=None if manifest is None else manifest.version,
    )
    return index, report


def _vectors(
    chunks: Sequence[Chunk],
    cached: CachedEmbeddings,
    progress: bool,
    on_progress: OnProgress | None,
) -> Matrix:
    if on_progress is not None or not progress:
        return embed_chunks(chunks, cached, on_progress=on_progress)
    line = ProgressLine(sys.stderr)
    try:
        return embed_chunks(chunks, cached, on_progress=line)
    finally:
        line.close()


@dataclass(frozen=True, slots=True)
class _Split:
    chunks: list[Chunk]
    files: dict[str, StoredFile]
    """The manifest's ``files``: each document's hash and chunks."""
    chunked_files: int


def _split(read: FolderRead, stored: Mapping[str, StoredFile], splitter: Splitter) -> _Split:
    """Every file's chunks, in folder order: stored ones when it was not read again or its
    content hash is unchanged, else split."""
    chunks: list[Chunk] = []
    files: dict[str, StoredFile] = {}
    chunked = 0
    for name in read.order:
        entry = read.unchanged.get(name)
        doc = read.documents.get(name)
        if entry is None and doc is not None:
            kept = stored.get(name)
            if kept is not None and kept.hash == doc.hash:
                entry = kept
            else:
                split = splitter.split(doc)
                chunked += 1
                stored_chunks = tuple(StoredChunk.of(chunk) for chunk in split)
                entry = StoredFile(hash=doc.hash, chunks=stored_chunks)
            stat = read.stats.get(name)
            if stat is not None:
                entry = entry.model_copy(update={"size": stat.size, "mtime_ns": stat.mtime_ns})
        assert entry is not None
        files[name] = entry
        chunks.extend(kept.chunk(name) for kept in entry.chunks)
    return _Split(chunks, files, chunked)
