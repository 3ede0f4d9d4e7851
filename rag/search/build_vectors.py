"""The vectors a build needs: from INDEX_DIR's embedding cache, or from a vector store.

:func:`rag.search.build.load_or_build` asks two things, whichever place keeps the vectors:
how many passages lack one (:func:`missing_vectors`: a lexical start when too many do), and the
vectors themselves, embedding only what is missing (:func:`dense_vectors`). In-process they are
a matrix stacked from the cache (:mod:`rag.search.embedding_run`); with ``VECTOR_STORE=qdrant``
the store embeds what it lacks and hands back its search side (:mod:`rag.search.vectors`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from langchain_core.embeddings import Embeddings

from rag.ingest.splitter import Splitter
from rag.search.dense import Matrix
from rag.search.embedding_run import OnProgress, embed_chunks
from rag.search.embeddings import CachedEmbeddings, embedder_identity
from rag.search.folder_split import Split
from rag.search.gate import GateModel
from rag.search.progress_line import ProgressLine
from rag.search.vectors import PassageVectors, Stored, VectorStore, VectorStoreUnavailable
from rag.search.versions import version_of


@dataclass(frozen=True, slots=True)
class Dense:
    vectors: Matrix | PassageVectors | None
    counts: tuple[int, int] | None
    """(embedded, reused) by this build; ``None`` for a lexical one."""


def local_cache(
    embeddings: Embeddings | None, index_dir: Path, vector_store: VectorStore | None
) -> CachedEmbeddings | None:
    """INDEX_DIR's embedding cache, when the vectors live in this process."""
    if embeddings is None or vector_store is not None:
        return None
    return CachedEmbeddings(embeddings, index_dir)


def missing_vectors(
    split: Split,
    cached: CachedEmbeddings | None,
    vector_store: VectorStore | None,
    identity: str | None,
    gate: GateModel,
    splitter: Splitter,
) -> int:
    """How many passages lack a vector where they are kept; with a store that cannot be
    reached, all of them (the index is then the lexical one, and says so)."""
    if cached is not None:
        return cached.missing(split.keys)
    if identity is None or vector_store is None:
        return 0
    version = version_of(split.digests, splitter, identity, gate)
    try:
        return vector_store.missing(split.chunks, version)
    except VectorStoreUnavailable:
        return len(split.chunks)


class FromLocalCache(Embeddings):
    """``inner``, but a passage INDEX_DIR's embedding cache holds (an index built before
    VECTOR_STORE=qdrant was set) is read from it instead of embedded again: switching an
    embedded deployment to Qdrant sends its vectors, it does not recompute them. The cache is
    read only when the store asks for a vector, and only read: nothing is kept or written."""

    def __init__(self, inner: Embeddings, index_dir: Path) -> None:
        self.inner = inner
        self.identity = embedder_identity(inner)
        self.index_dir = index_dir
        self._cache: CachedEmbeddings | None = None

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if self._cache is None:
            self._cache = CachedEmbeddings(self.inner, self.index_dir)
        return self._cache.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)

    @property
    def embedded(self) -> int | None:
        """Passages really embedded (the rest came from the cache); ``None``: none asked."""
        return None if self._cache is None else self._cache.embedded


def dense_vectors(
    split: Split,
    index_dir: Path,
    cached: CachedEmbeddings | None,
    vector_store: VectorStore | None,
    embeddings: Embeddings | None,
    identity: str | None,
    version: str,
    progress: bool,
    on_progress: OnProgress | None,
) -> Dense:
    """The passages' vectors (``None`` without an embedder: the lexical index)."""
    if cached is not None:
        vectors = _vectors(split, cached, progress, on_progress)
        return Dense(vectors, (cached.embedded, cached.reused))
    if embeddings is None or vector_store is None or identity is None:
        return Dense(None, None)
    embedder = FromLocalCache(embeddings, index_dir)
    kept = _stored(split, vector_store, embedder, identity, version, progress, on_progress)
    embedded = kept.embedded if embedder.embedded is None else embedder.embedded
    return Dense(kept.vectors, (embedded, len(split.chunks) - embedded))


def _vectors(
    split: Split, cached: CachedEmbeddings, progress: bool, on_progress: OnProgress | None
) -> Matrix:
    if on_progress is not None or not progress:
        return embed_chunks(split.chunks, cached, keys=split.keys, on_progress=on_progress)
    line = ProgressLine(sys.stderr)
    try:
        return embed_chunks(split.chunks, cached, keys=split.keys, on_progress=line)
    finally:
        line.close()


def _stored(
    split: Split,
    vector_store: VectorStore,
    embeddings: Embeddings,
    identity: str,
    version: str,
    progress: bool,
    on_progress: OnProgress | None,
) -> Stored:
    line = ProgressLine(sys.stderr) if progress and on_progress is None else None
    try:
        return vector_store.vectors(
            split.chunks,
            embeddings,
            embedder=identity,
            version=version,
            on_progress=on_progress or line,
        )
    finally:
        if line is not None:
            line.close()
