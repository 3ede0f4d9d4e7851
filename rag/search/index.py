"""The searchable index: chunks, their lexical and dense representations, and the gate.

A query runs both searches over every chunk at once (numpy, no Python loop per chunk):

1. lexical: BM25 for ranking, tf-idf cosine for the gate (:mod:`rag.search.lexical`);
2. dense: cosine against a row-normalised float32 matrix, one matrix-vector product;
3. fusion: when the gate has measured constants for the embedder (e5, the test fake), chunks are
   ranked by the gate score itself (:mod:`rag.search.gate`) — the mean of the standardised lexical
   coverage, lexical cosine and dense cosine, a score fusion that keeps how *much* better one
   chunk's dense cosine is, which ranks discard. Otherwise (``EMBEDDINGS=none``, an unmeasured
   embedder) BM25 and the dense ranking are fused by reciprocal rank
   (:func:`rag.search.fusion.fuse`), ties broken by the gate score. Remaining ties keep index order,
   so the numbering of sources never drifts;
4. every hit carries the gate score that the pipeline compares with ``min_score``, plus the two
   raw similarities and its rank for ``rag ask``. With score fusion the first hit is the
   best-scoring chunk, so "refuse below the threshold" means "no chunk scores that high".

Measured with ``rag eval`` on cmrc2018-trial (e5): RRF (BM25 weight 3) gave document
Recall@1 0.986, answer Recall@1 / @5 0.962 / 0.990; gate-score fusion gives 0.991, 0.954 /
0.993 (each half of the questions split by source: document Recall@1 0.991 / 0.992). In
lexical-only mode ranking by the gate loses to BM25 (answer Recall@1 0.926 vs 0.958), so BM25
keeps ranking there.

What is indexed is :attr:`Chunk.indexed_text` (title and heading path + passage); what is
shown stays :attr:`Chunk.text`. :func:`rag.search.build.load_or_build` persists the index under
INDEX_DIR and rebuilds it incrementally.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

from rag.chunks import Chunk
from rag.results import Hit
from rag.search import candidates
from rag.search.embeddings import embedder_identity
from rag.search.fusion import DEFAULT_DEPTH, Ranked, RowArray, fuse, top_positions
from rag.search.gate import GateModel, gate_for
from rag.search.lexical import LexicalIndex, LexicalScores
from rag.search.translation import Translation
from rag.search.vectors import PassageVectors, VectorStore
from rag.search.versions import SplitShape, index_version

logger = logging.getLogger(__name__)

Matrix = npt.NDArray[np.float32]

LEXICAL_WEIGHT = 3.0
"""RRF weight of the BM25 ranking; the dense ranking weighs :data:`DENSE_WEIGHT`.

Used when the gate cannot weigh the dense cosine (an embedder without measured constants).
Measured when e5 was fused by rank too, with ``rag eval`` on cmrc2018-trial at the shipped
chunking (500/100): weights 1 / 2 / 3 / 4 gave answer Recall@1 0.938 / 0.959 / 0.962 / 0.962
and document Recall@1 0.981 / 0.983 / 0.986 / 0.986. Exact lexical matches (names, numbers,
policy terms) are the strongest evidence in this corpus; the dense ranking reorders among them
and lifts paraphrases. (At the older 300-character chunks, weight 2 was best.)
"""
DENSE_WEIGHT = 1.0

EMBED_BATCH = 32
"""Texts per embedder call while indexing: the progress bar moves once per batch."""


def normalised(vectors: Sequence[Sequence[float]] | Sequence[float] | Matrix) -> Matrix:
    """Rows scaled to unit length (zero rows stay zero), as one float32 matrix."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix.reshape(1, -1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: Matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return unit


def embed_texts(texts: Sequence[str], embeddings: Embeddings, *, progress: bool = False) -> Matrix:
    """Embed ``texts`` in batches, with a progress bar and ETA on stderr when asked."""
    from tqdm import tqdm  # only in-memory indexes (tests, eval) embed here: not every start

    rows: list[list[float]] = []
    with tqdm(
        total=len(texts), desc="embedding", unit="chunk", disable=not progress, leave=False
    ) as bar:
        for start in range(0, len(texts), EMBED_BATCH):
            batch = list(texts[start : start + EMBED_BATCH])
            rows.extend(embeddings.embed_documents(batch))
            bar.update(len(batch))
    return normalised(rows) if rows else np.zeros((0, 0), np.float32)


def _dense_scores(vectors: Matrix, embeddings: Embeddings, question: str) -> Matrix | None:
    query = _query_vector(embeddings, question)
    if query is None:
        return None
    scores: Matrix = vectors @ query
    return scores


def _query_vector(embeddings: Embeddings, question: str) -> Matrix | None:
    # A remote embedder can fail (endpoint down, quota); the question is then answered from
    # lexical search alone rather than not at all. Remote embedders gate on the lexical
    # signals anyway (rag.search.gate.gate_for), so the threshold keeps its meaning.
    try:
        query: Matrix = normalised(embeddings.embed_query(question))[0]
        return query
    except Exception:
        logger.exception("query embedding failed; searching lexically only")
        return None


class Index:
    """Hybrid lexical + dense search over a fixed tuple of chunks."""

    def __init__(
        self,
        chunks: Sequence[Chunk],
        *,
        vectors: Matrix | PassageVectors | None,
        embeddings: Embeddings | None,
        version: str,
        gate: GateModel | None = None,
        min_score: float | None = None,
        lexical: LexicalIndex | None = None,
        chinese: npt.NDArray[np.bool_] | None = None,
    ) -> None:
        """``vectors``: the chunks' vectors as a matrix in this process, or the store that holds
        them (:mod:`rag.search.vectors`). ``lexical``, ``chinese``: the chunks' lexical index and
        which are in Chinese, when stored (else read here, the languages when a question first
        needs them)."""
        if (vectors is None) != (embeddings is None):
            msg = "vectors and embeddings must both be given (dense search) or both be None"
            raise ValueError(msg)
        matrix = vectors if isinstance(vectors, np.ndarray) else None
        if matrix is not None and len(chunks) and matrix.shape[0] != len(chunks):
            msg = f"got {matrix.shape[0]} vectors for {len(chunks)} chunks"
            raise ValueError(msg)
        self.chunks: tuple[Chunk, ...] = tuple(chunks)
        self.version = version
        self.embeddings = embeddings
        self.gate = gate or gate_for(None if embeddings is None else embedder_identity(embeddings))
        self.min_score: float = self.gate.threshold if min_score is None else min_score
        """The threshold to refuse below: calibration next to the index, else the default."""
        self._vectors = None if matrix is None else normalised(matrix)
        self.store = None if vectors is None or isinstance(vectors, np.ndarray) else vectors
        """Where the vectors live when not in this process (``VECTOR_STORE=qdrant``)."""
        if lexical is not None and len(lexical) != len(self.chunks):
            msg = f"got a lexical index of {len(lexical)} texts for {len(self.chunks)} chunks"
            raise ValueError(msg)
        self._lexical = lexical or LexicalIndex([chunk.indexed_text for chunk in self.chunks])
        self._by_id = {chunk.id: chunk for chunk in self.chunks}
        if chinese is not None and len(chinese) != len(self.chunks):
            msg = f"got {len(chinese)} languages for {len(self.chunks)} chunks"
            raise ValueError(msg)
        self._translated = Translation(self.chunks, self._lexical, chinese)

    def __len__(self) -> int:
        return len(self.chunks)

    def __repr__(self) -> str:
        dense = "lexical only" if self.embeddings is None else embedder_identity(self.embeddings)
        return f"<Index {self.version} {len(self)} chunks, {dense}, min_score={self.min_score}>"

    @property
    def memory_bytes(self) -> int:
        """Bytes of the search structures (lexical matrix and dense vectors)."""
        dense = 0 if self._vectors is None else int(self._vectors.nbytes)
        return self._lexical.memory_bytes + dense

    def chunk(self, chunk_id: str) -> Chunk | None:
        return self._by_id.get(chunk_id)

    def search(self, question: str, k: int, *, rows: RowArray | None = None) -> list[Hit]:
        """The ``min(k, allowed)`` best chunks, best first, each with its gate score.

        ``rows``: the only chunks the asker may see (:mod:`rag.search.scoped`), ``None`` for
        all. The filter comes before ranking, so the top k are all allowed passages and the gate
        never scores a passage from another scope.
        """
        if k < 1:
            msg = f"k ({k}) must be at least 1"
            raise ValueError(msg)
        if not self.chunks or (rows is not None and not len(rows)):
            return []
        lexical = self._translated.reading(question, self._lexical.scores(question))
        if self.store is not None:
            return self._search_store(self.store, question, k, rows, lexical)
        dense: Matrix | None = None
        if self._vectors is not None and self.embeddings is not None:
            dense = _dense_scores(self._vectors, self.embeddings, question)
        if rows is not None:
            lexical = lexical.subset(rows)
            dense = None if dense is None else dense[rows]
        gate = self.gate.scores(lexical.coverage, lexical.cosine, dense)
        count = min(k, len(gate))
        if dense is not None and self.gate.uses_dense:
            # Score fusion: the gate already is the standardised mean of both searches.
            found = top_positions(gate, count).tolist()
        else:
            found = [ranked.position for ranked in self._fused(lexical.bm25, dense, gate, count)]
        return [
            Hit(
                chunk=self.chunks[position if rows is None else int(rows[position])],
                score=float(gate[position]),
                lexical=float(lexical.cosine[position]),
                dense=None if dense is None else float(dense[position]),
                rank=rank,
            )
            for rank, position in enumerate(found, start=1)
        ]

    def _search_store(
        self,
        store: PassageVectors,
        question: str,
        k: int,
        rows: RowArray | None,
        lexical: LexicalScores,
    ) -> list[Hit]:
        """:meth:`search` with the vectors in a store (:mod:`rag.search.candidates`)."""
        assert self.embeddings is not None
        query = _query_vector(self.embeddings, question)
        scores = lexical if rows is None else lexical.subset(rows)
        weights = candidates.Weights(LEXICAL_WEIGHT, DENSE_WEIGHT)
        found = candidates.search(
            scores, rows=rows, gate=self.gate, k=min(k, len(scores.bm25)), query=query,
            store=store, min_score=self.min_score, weights=weights,
        )  # fmt: skip
        return candidates.hits(self.chunks, scores, rows, found)

    @staticmethod
    def _fused(bm25: Matrix, dense: Matrix | None, gate: Matrix, k: int) -> list[Ranked]:
        """Reciprocal-rank fusion of BM25 and, when the gate cannot weigh it, the dense ranking."""
        depth = max(k, DEFAULT_DEPTH)
        rankings = [(top_positions(bm25, depth, positive_only=True), LEXICAL_WEIGHT)]
        if dense is not None:
            rankings.append((top_positions(dense, depth), DENSE_WEIGHT))
        return fuse(rankings, gate, k, depth=depth)

    @classmethod
    def from_chunks(
        cls,
        chunks: Sequence[Chunk],
        *,
        embeddings: Embeddings | None,
        splitter: SplitShape,
        min_score: float | None = None,
        progress: bool = False,
        store: VectorStore | None = None,
    ) -> Index:
        """``store``: where the vectors go (embedding only what it lacks), else this process."""
        identity = None if embeddings is None else embedder_identity(embeddings)
        gate = gate_for(identity)
        version = index_version(chunks, splitter, identity, gate)
        vectors: Matrix | PassageVectors | None = None
        if embeddings is not None and identity is not None and store is not None:
            vectors = store.vectors(chunks, embeddings, embedder=identity, version=version).vectors
        elif embeddings is not None:
            texts = [chunk.dense_text for chunk in chunks]
            vectors = embed_texts(texts, embeddings, progress=progress)
        return cls(
            chunks,
            vectors=vectors,
            embeddings=embeddings,
            version=version,
            gate=gate,
            min_score=min_score,
        )
