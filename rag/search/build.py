"""The index on disk: a manifest under INDEX_DIR, rebuilt incrementally from DOCS_DIR.

``manifest.json`` (:mod:`rag.search.manifest`) records the index version, the splitter, embedder
and gate it was built with, and each file's content hash with its chunks; vectors live in the
embedding cache (:class:`rag.search.embeddings.CachedEmbeddings`). :func:`load_or_build`
re-reads only files whose hash changed and embeds only chunks whose text changed; a damaged
manifest means a rebuild, never a crash.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from langchain_core.embeddings import Embeddings

from rag.chunks import Chunk
from rag.ingest.documents import SourceDocument
from rag.ingest.loaders import Skipped, load_folder
from rag.ingest.splitter import Splitter
from rag.search.calibration import load_calibration
from rag.search.embeddings import CachedEmbeddings, embedder_identity
from rag.search.gate import gate_for
from rag.search.index import Index, Matrix, embed_texts, index_version
from rag.search.manifest import Manifest, StoredChunk, StoredFile, read_manifest, write_manifest

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
) -> tuple[Index, BuildReport]:
    """The index over ``docs_dir``: loaded from ``index_dir`` when still valid, else rebuilt,
    and the report of what was loaded, split and embedded (returned beside the index, not
    stored on it: the index knows nothing of how it was built).

    The threshold is ``min_score`` when given (MIN_SCORE), else a calibration stored next to
    the index for the same gate (``python -m rag calibrate``), else the gate's shipped default.

    Rebuilding is incremental: a file whose content hash is unchanged keeps its stored chunks
    (not re-split) and their vectors (embedding cache keyed by chunk content), so only new or
    changed files cost time.
    """
    started = time.perf_counter()
    docs, skipped = load_folder(docs_dir)
    splitter = Splitter()
    identity = None if embeddings is None else embedder_identity(embeddings)
    gate = gate_for(identity)
    manifest = read_manifest(index_dir)
    shape = (splitter.chunk_size, splitter.chunk_overlap)
    reusable = manifest.files if manifest is not None and manifest.splitter == shape else {}
    split = _split(docs, reusable, splitter)
    cached = None if embeddings is None else CachedEmbeddings(embeddings, index_dir)
    vectors = None if cached is None else _embed(split.chunks, cached, progress=progress)
    version = index_version(split.chunks, splitter, identity, gate)
    built = Manifest(
        version=version, splitter=shape, embedder=identity, gate=gate.identity, files=split.files
    )
    if built != manifest:
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
    )
    report = BuildReport(
        files=len(docs),
        skipped=tuple(skipped),
        chunked_files=split.chunked_files,
        chunks=len(split.chunks),
        embedded=0 if cached is None else cached.embedded,
        reused=0 if cached is None else cached.reused,
        seconds=time.perf_counter() - started,
        version=version,
        previous_version=None if manifest is None else manifest.version,
    )
    return index, report


@dataclass(frozen=True, slots=True)
class _Split:
    chunks: list[Chunk]
    files: dict[str, StoredFile]
    """The manifest's ``files``: each document's hash and chunks."""
    chunked_files: int


def _split(
    docs: Sequence[SourceDocument], stored: Mapping[str, StoredFile], splitter: Splitter
) -> _Split:
    """Every document's chunks: stored ones when its content hash is unchanged, else split."""
    chunks: list[Chunk] = []
    files: dict[str, StoredFile] = {}
    chunked = 0
    for doc in docs:
        entry = stored.get(doc.source)
        if entry is not None and entry.hash == doc.hash:
            doc_chunks = [kept.chunk(doc.source) for kept in entry.chunks]
            files[doc.source] = entry
        else:
            doc_chunks = splitter.split(doc)
            chunked += 1
            stored_chunks = tuple(StoredChunk.of(chunk) for chunk in doc_chunks)
            files[doc.source] = StoredFile(hash=doc.hash, chunks=stored_chunks)
        chunks.extend(doc_chunks)
    return _Split(chunks, files, chunked)


def _embed(chunks: Sequence[Chunk], cached: CachedEmbeddings, *, progress: bool) -> Matrix:
    """The chunks' vectors; the cache is saved (pruned to these chunks) when it changed."""
    try:
        vectors = embed_texts([c.dense_text for c in chunks], cached, progress=progress)
    except BaseException:
        # Stopped (a bot shutting down, Ctrl-C) or failed: what was embedded is kept, so the
        # next build embeds only the rest instead of starting a long backfill over.
        if cached.embedded:
            cached.save()
        raise
    if cached.embedded or len(cached) != len({c.vector_key for c in chunks}):
        cached.save(keep=[c.vector_key for c in chunks])
    return vectors
