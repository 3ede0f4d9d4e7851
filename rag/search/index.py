"""The searchable index: chunks, their lexical and dense representations, and the gate.

A query runs both searches over every chunk at once (numpy, no Python loop per chunk):

1. lexical: BM25 for ranking, tf-idf cosine for the gate (:mod:`rag.search.lexical`);
2. dense: cosine against a row-normalised float32 matrix, one matrix-vector product;
3. fusion: with measured gate constants for the embedder (e5, the test fake), chunks are ranked
   by a weighted mean of the gate's standardised signals (:mod:`rag.search.gate`; e5: coverage
   and dense cosine, 1 : 2), a score fusion that keeps how *much* better a dense cosine is.
   Otherwise (``EMBEDDINGS=none``, an unmeasured embedder) BM25 and the dense ranking are fused
   by reciprocal rank (:func:`rag.search.fusion.fuse`), ties broken by the gate score, then by
   index order, so the numbering of sources never drifts;
4. every hit carries the gate score (:meth:`GateModel.scores`), the first with its sentence lift
   (:mod:`rag.search.lift`): what the pipeline compares with ``min_score``.

Measured with ``rag eval`` on cmrc2018-trial (e5), document Recall@1, answer Recall@1 / @5:
RRF (BM25 weight 3) 0.986, 0.962 / 0.990; the gate's own score 0.991, 0.955 / 0.993; coverage
and dense cosine 0.987, 0.970 / 0.993. Lexical-only, BM25 ranks (answer Recall@1 0.958; 0.926
ranked by the gate).

What is indexed is :attr:`Chunk.indexed_text` (title and heading path + passage); what is
shown stays :attr:`Chunk.text`. :func:`rag.search.build.load_or_build` persists the index under
INDEX_DIR and rebuilds it incrementally.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

from rag.chunks import Chunk, content_hash
from rag.language import Language, has_ideograph
from rag.results import Hit
from rag.search import candidates
from rag.search.dense import Matrix, dense_scores, embed_texts, normalised, query_vector
from rag.search.diverse import PER_SECTION, diverse, pool_size
from rag.search.embeddings import embedder_identity
from rag.search.fusion import DEFAULT_DEPTH, Ranked, RowArray, fuse, top_positions
from rag.search.gate import GateModel, gate_for
from rag.search.lexical import LexicalIndex, LexicalScores
from rag.search.lift import Lifter
from rag.search.on_demand import OnDemand, background_rows
from rag.search.signals import Signals
from rag.search.standing import standing
from rag.search.translation import Translation
from rag.search.vectors import PassageVectors, VectorStore
from rag.search.versions import SplitShape, index_version

logger = logging.getLogger(__name__)


LEXICAL_WEIGHT = 3.0
"""RRF weight of the BM25 ranking; the dense ranking weighs :data:`DENSE_WEIGHT`.

Used when the gate cannot weigh the dense cosine (an embedder without measured constants).
Measured when e5 was fused by rank too (``rag eval``, cmrc2018-trial): weights 1 / 2 / 3 / 4 gave
answer Recall@1 0.938 / 0.959 / 0.962 / 0.962: exact lexical matches are the strongest evidence.
"""
DENSE_WEIGHT = 1.0


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
        on_demand: OnDemand | None = None,
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
        # The threshold to refuse below: a calibration next to the index, else the gate's.
        self.min_score: float = self.gate.threshold if min_score is None else min_score
        self._vectors = None if matrix is None else normalised(matrix)
        # Where the vectors live when not in this process (VECTOR_STORE=qdrant).
        self.store = None if vectors is None or isinstance(vectors, np.ndarray) else vectors
        if lexical is not None and len(lexical) != len(self.chunks):
            msg = f"got a lexical index of {len(lexical)} texts for {len(self.chunks)} chunks"
            raise ValueError(msg)
        self._lexical = lexical or LexicalIndex([chunk.indexed_text for chunk in self.chunks])
        self._by_id = {chunk.id: chunk for chunk in self.chunks}
        if chinese is not None and len(chinese) != len(self.chunks):
            msg = f"got {len(chinese)} languages for {len(self.chunks)} chunks"
            raise ValueError(msg)
        self._translated = Translation(self.chunks, self._lexical, chinese)
        self.on_demand = on_demand  # without vectors: embeds each question's candidates
        embedder = embeddings or (on_demand.embeddings if on_demand else None)
        self.lifter = None if embedder is None else Lifter(embedder, self._translated.weights)
        self._outage: OnDemand | None = None  # the same while the store is down

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

    def regated(self, gate: GateModel, min_score: float | None = None) -> Index:
        """This index weighed by another gate (one fitted on other corpora by
        ``bench/answerability.py``); the arrays are shared, the version is the gate's too."""
        other = copy.copy(self)
        other.gate = gate
        other.min_score = gate.threshold if min_score is None else min_score
        other.version = content_hash(f"{self.version}:{gate.identity}")[:16]
        return other

    def search(
        self, question: str, k: int, *, rows: RowArray | None = None, per_section: int = PER_SECTION
    ) -> list[Hit]:
        """The ``min(k, allowed)`` best chunks, best first, with their gate scores, kept diverse
        (:mod:`rag.search.diverse`: the first is always the best). ``rows``: the only chunks the
        asker may see (:mod:`rag.search.scoped`), ``None`` for all; filtered before ranking, so
        the gate never scores a passage from another scope."""
        hits = diverse(self.ranked(question, pool_size(k), rows=rows), k, per_section=per_section)
        return hits if self.lifter is None else self.lifter.first(self.gate, question, hits)

    def ranked(self, question: str, k: int, *, rows: RowArray | None = None) -> list[Hit]:
        """The ``min(k, allowed)`` best chunks by score alone, best first (:meth:`search`)."""
        if not self.chunks or (rows is not None and not len(rows)):
            return []
        if self.store is not None:
            lexical = self._translated.reading(question, self._lexical.scores(question))
            return self._search_store(self.store, question, k, rows, lexical)
        signals = self.signals(question, rows=rows)
        return self._hits(signals, count=min(k, len(signals.lexical.bm25)), rows=rows)

    def _found(self, signals: Signals, count: int) -> list[candidates.Found]:
        """The ``count`` best positions of ``signals`` by the gate."""
        lexical, dense = signals.lexical, signals.dense
        if dense is not None and self.gate.uses_dense:
            # Score fusion: the gate already is the standardised mean of both searches. Only
            # passages with a dense cosine take part (all of them in full mode; the question's
            # lexical candidates before the vectors exist: rag.search.on_demand).
            # Ranked by the gate's ranking weights, each hit carrying its gate score.
            gate, ranks = signals.scored(self.gate)
            weighed = np.flatnonzero(~np.isnan(gate))
            found = weighed[top_positions(ranks[weighed], min(count, len(weighed)))].tolist()
        else:
            gate = signals.scores(self.gate)
            found = [ranked.position for ranked in self._fused(lexical.bm25, dense, gate, count)]
        return [
            candidates.Found(p, float(gate[p]), None if dense is None else float(dense[p]))
            for p in found
        ]

    def _hits(self, signals: Signals, *, count: int, rows: RowArray | None) -> list[Hit]:
        return candidates.hits(self.chunks, signals.lexical, rows, self._found(signals, count))

    def signals(self, question: str, *, rows: RowArray | None = None) -> Signals:
        """The similarities to ``question`` of ``rows`` (all passages: ``None``), in that order
        (:mod:`rag.search.signals`); in this process's vectors or on demand, not in a store."""
        lexical = self._translated.reading(question, self._lexical.scores(question))
        crossed = self._crossed(question)
        signals = Signals(lexical, crossed=crossed)
        if self._vectors is not None and self.embeddings is not None:
            dense = dense_scores(self._vectors, self.embeddings, question)
            stood = None
            if dense is not None and self.gate.standing is not None:
                # Against every passage, whatever the asker may see: the corpus is the background.
                stood = standing(dense, self._in_language("zh"))
            signals = Signals(lexical, dense, stood, crossed)
        if rows is not None:
            signals = signals.subset(rows)
        if self.on_demand is None or signals.dense is not None:
            return signals
        return self._embedded_here(self.on_demand, question, signals, rows)

    def _embedded_here(
        self, on_demand: OnDemand, question: str, signals: Signals, rows: RowArray | None
    ) -> Signals:
        """``signals`` with the question's lexical candidates embedded by ``on_demand``."""
        allowed = np.arange(len(self.chunks), dtype=np.intp) if rows is None else rows
        return on_demand.with_dense(question, signals, allowed, self._in_language("zh"))

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
        query = query_vector(self.embeddings, question)
        scores = lexical if rows is None else lexical.subset(rows)
        weights = candidates.Weights(LEXICAL_WEIGHT, DENSE_WEIGHT)
        sample = background_rows(len(self.chunks)) if self.gate.standing else np.zeros(0, np.intp)
        crossed = self._crossed(question)
        crossed = crossed if rows is None else crossed[rows]
        background = candidates.Background(sample, self._in_language("zh"), crossed)
        found = candidates.search(
            scores, rows=rows, gate=self.gate, k=min(k, len(scores.bm25)), query=query,
            store=store, min_score=self.min_score, weights=weights, background=background,
            outage=lambda: self._during_outage(question, min(k, len(scores.bm25)), rows, scores),
        )  # fmt: skip
        return candidates.hits(self.chunks, scores, rows, found)

    def _during_outage(
        self, question: str, count: int, rows: RowArray | None, lexical: LexicalScores
    ) -> list[candidates.Found]:
        """While the store is down: the question's candidates embedded here and weighed as in
        full mode, not by the lexical gate, which refuses loose wording (``流利级课程多少钱？``)."""
        assert self.embeddings is not None
        if self._outage is None:
            self._outage = OnDemand(self.chunks, self.embeddings, cache_path=None)
            if self.gate.standing is not None:
                self._outage.embed_background()  # once per process: seconds
        crossed = self._crossed(question)
        signals = Signals(lexical, crossed=crossed if rows is None else crossed[rows])
        return self._found(self._embedded_here(self._outage, question, signals, rows), count)

    def _crossed(self, question: str) -> npt.NDArray[np.bool_]:
        """The passages the gate weighs as written in the other language than ``question``: in
        a corpus mostly written in the other language (a Chinese question to an English
        handbook). In a corpus mostly in the question's own language the answer is expected in
        that language, and its other-language passages are mostly configuration and code, which
        e5 puts as far from every question: lifting them ranked them above the prose
        (realdocs-tune zh-apisix gate AUROC 0.766 -> 0.725)."""
        other = self._in_language("en" if has_ideograph(question) else "zh")
        return other if other.mean() > 0.5 else np.zeros(len(other), np.bool_)

    def _in_language(self, language: Language) -> npt.NDArray[np.bool_]:
        """Which passages are written in ``language`` (read once, when first needed)."""
        chinese = self._translated.chinese
        return chinese if language == "zh" else ~chinese

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
