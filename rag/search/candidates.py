"""Search when the vectors live in a vector engine: the ranking's top k from two short lists.

In-process, every passage gets all the signals of the gate (:mod:`rag.search.gate`). A vector
engine returns only the passages nearest to the question, so a passage the lexical search ranks
high but the dense one does not would lack its cosine and be ranked on two signals of three.
So one request (:meth:`~rag.search.vectors.PassageVectors.dense`) asks the store for both: the
``depth`` nearest passages the asker may see, and the cosines of the ``depth`` passages whose
lexical part of the ranking is best. Every candidate then has the same signals as in-process.

The top k are exact (Fagin's threshold algorithm): a passage in neither list has a lexical part
no higher than the last lexical candidate's and a cosine no higher than the store's floor, so its
rank (:meth:`~rag.search.gate.GateModel.scored`) is at most their weighted mean. When the k-th
candidate ranks at least that high, nothing outside
the lists can beat it; otherwise the lists grow fourfold and are asked again, up to
:data:`MAX_DEPTH`. (With an approximate engine "nearest" is as exact as its HNSW search.)

Embedders without measured gate constants rank by reciprocal rank fusion as in-process, which
only ever reads the ``depth`` best of each ranking. When the store cannot be reached (or the
question cannot be embedded) the question is answered from the lexical index: ranked by BM25,
scored by the lexical gate and shifted so that the served threshold means the lexical gate's —
what a bot in its lexical phase answers, not a dense gate missing a third of its evidence.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
import numpy.typing as npt

from rag.chunks import Chunk
from rag.results import Hit
from rag.search.fusion import DEFAULT_DEPTH, RowArray, fuse, top_positions
from rag.search.gate import LEXICAL_ONLY, GateModel
from rag.search.lexical import LexicalScores
from rag.search.standing import background_standing, eligible
from rag.search.vectors import FloatArray, PassageVectors, VectorStoreUnavailable

logger = logging.getLogger(__name__)

MAX_DEPTH = DEFAULT_DEPTH * 4**3
"""The longest lists asked for; beyond it the candidates' top k is taken as it is."""


@dataclass(frozen=True, slots=True)
class Found:
    position: int
    """Position in the searched scores (a row of the index, or of its allowed rows)."""
    score: float
    dense: float | None


@dataclass(frozen=True, slots=True)
class Weights:
    """Reciprocal rank fusion's weights (:mod:`rag.search.index` holds the measured ones)."""

    lexical: float
    dense: float


@dataclass(frozen=True, slots=True)
class Background:
    """What the dense cosine's standing is measured against (:mod:`rag.search.standing`): a
    fixed sample of the index's rows, asked for with the lexical candidates, and which of the
    index's rows are written in Chinese."""

    rows: RowArray
    chinese: npt.NDArray[np.bool_]
    crossed: npt.NDArray[np.bool_]
    """Of the searched positions: written in the other language than the question."""


def search(
    lexical: LexicalScores,
    *,
    rows: RowArray | None,
    gate: GateModel,
    k: int,
    query: FloatArray | None,
    store: PassageVectors,
    min_score: float,
    weights: Weights,
    background: Background | None = None,
    outage: Callable[[], list[Found]] | None = None,
) -> list[Found]:
    """The ``k`` best positions of ``lexical`` (the scores of ``rows``, all rows when
    ``None``) with their gate scores and cosines, best first. ``outage``: how to answer while
    the store is down (default: the lexical gate alone)."""
    if query is not None:
        try:
            if gate.dense is not None:
                return _by_gate(lexical, rows, gate, k, query, store, background)
            return _by_rank(lexical, rows, gate, k, query, store, weights)
        except VectorStoreUnavailable:
            if outage is not None:  # the store's guard said so once per outage
                return outage()
    return _lexically(lexical, k, min_score, weights)


def hits(
    chunks: Sequence[Chunk], lexical: LexicalScores, rows: RowArray | None, found: list[Found]
) -> list[Hit]:
    """``found`` as the index's hits (``lexical``: the scores :func:`search` was given)."""
    return [
        Hit(
            chunk=chunks[f.position if rows is None else int(rows[f.position])],
            score=f.score,
            lexical=float(lexical.cosine[f.position]),
            dense=f.dense,
            rank=rank,
        )
        for rank, f in enumerate(found, start=1)
    ]


def _by_gate(
    lexical: LexicalScores,
    rows: RowArray | None,
    gate: GateModel,
    k: int,
    query: FloatArray,
    store: PassageVectors,
    background: Background | None,
) -> list[Found]:
    weights = gate.ranking
    lexical_part = weights.coverage * gate.coverage.z(lexical.coverage)
    lexical_part += weights.cosine * gate.cosine.z(lexical.cosine)
    depth = max(DEFAULT_DEPTH, k)
    while True:
        asked = (lexical, lexical_part, rows, gate, k, depth)
        found, exact = _ranked(*asked, query, store, background)
        if exact or depth >= MAX_DEPTH or depth >= len(lexical_part):
            return found
        depth *= 4


def _ranked(
    lexical: LexicalScores,
    lexical_part: FloatArray,
    rows: RowArray | None,
    gate: GateModel,
    k: int,
    depth: int,
    query: FloatArray,
    store: PassageVectors,
    background: Background | None,
) -> tuple[list[Found], bool]:
    """The top ``k`` of both lists of length ``depth``, and whether they are provably the
    top ``k`` of all positions."""
    assert gate.dense is not None
    by_lexicon = top_positions(lexical_part, depth)
    named = _rows_of(by_lexicon, rows)
    sample = np.zeros(0, np.intp) if background is None else background.rows
    answer = store.dense(query, nearest=depth, rows=rows, also=np.concatenate([named, sample]))
    nearest, cosines = _positions(answer.rows, answer.cosines, rows)
    candidates = np.union1d(by_lexicon, nearest)
    dense = np.full(len(candidates), np.nan, np.float32)
    dense[np.searchsorted(candidates, by_lexicon)] = answer.asked[: len(named)]
    dense[np.searchsorted(candidates, nearest)] = cosines
    # A passage the store holds no vector for (replaced moments ago by another process's
    # re-index) cannot be weighed: it is left out rather than ranked on two signals.
    known = ~np.isnan(dense)
    candidates, dense = candidates[known], dense[known]
    stood, moments = None, cast("dict[bool, tuple[float, float]]", {})
    if background is not None:
        languages = background.chinese[_rows_of(candidates, rows)]
        cosines_of_sample = answer.asked[len(named) :]
        sampled = background.chinese[sample]
        corpus = eligible(background.chinese)
        stood, moments = background_standing(cosines_of_sample, sampled, dense, languages, corpus)
    crossed = None if background is None else background.crossed[candidates]
    signals = (lexical.coverage[candidates], lexical.cosine[candidates], dense, stood, crossed)
    scores, ranks = gate.scored(*signals)
    order = np.lexsort((candidates, -ranks))[:k]
    lexical_floor = (
        -np.inf if len(by_lexicon) == len(lexical_part) else lexical_part[by_lexicon[-1]]
    )
    bound = _bound(gate, float(lexical_floor), answer.floor, moments, background is not None)
    exact = bound == -np.inf or (len(order) == k and float(ranks[order[-1]]) >= bound)
    found = [Found(int(candidates[i]), float(scores[i]), float(dense[i])) for i in order.tolist()]
    return found, exact


def _bound(
    gate: GateModel,
    lexical_floor: float,
    dense_floor: float,
    moments: dict[bool, tuple[float, float]],
    standing: bool,
) -> float:
    """The highest rank a passage in neither list can have (:meth:`GateModel.scored`): its
    lexical part and cosine are at most the floors, so its standing at most the floor's in the
    more lenient language (and without a background for its language, the mean of the other
    terms)."""
    assert gate.dense is not None
    weights = gate.ranking
    lifted = dense_floor + gate.crossing  # a passage in the other language counts as higher
    dense_z = float(gate.dense.z(np.asarray([lifted], np.float32))[0])
    count = weights.coverage + weights.cosine + weights.dense
    three = (lexical_floor + weights.dense * dense_z) / count
    if not standing or gate.standing is None or not weights.standing or not moments:
        return three
    best = max((dense_floor - mean) / spread for mean, spread in moments.values())
    stood = float(gate.standing.z(np.asarray([best], np.float32))[0])
    four = (lexical_floor + weights.dense * dense_z + weights.standing * stood) / (
        count + weights.standing
    )
    return four if len(moments) == 2 else max(three, four)


def _by_rank(
    lexical: LexicalScores,
    rows: RowArray | None,
    gate: GateModel,
    k: int,
    query: FloatArray,
    store: PassageVectors,
    weights: Weights,
) -> list[Found]:
    """Reciprocal rank fusion of BM25 and the dense ranking; the gate (lexical for such an
    embedder) breaks ties and scores."""
    scores = gate.scores(lexical.coverage, lexical.cosine, None)
    depth = max(k, DEFAULT_DEPTH)
    by_bm25 = top_positions(lexical.bm25, depth, positive_only=True)
    answer = store.dense(query, nearest=depth, rows=rows, also=_rows_of(by_bm25, rows))
    nearest, cosines = _positions(answer.rows, answer.cosines, rows)
    cosine_of = dict(zip(by_bm25.tolist(), answer.asked.tolist(), strict=True))
    cosine_of.update(zip(nearest.tolist(), cosines.tolist(), strict=True))
    rankings = [(by_bm25, weights.lexical), (nearest, weights.dense)]
    return [
        Found(ranked.position, float(scores[ranked.position]), _cosine(cosine_of, ranked.position))
        for ranked in fuse(rankings, scores, k, depth=depth)
    ]


def _lexically(lexical: LexicalScores, k: int, min_score: float, weights: Weights) -> list[Found]:
    scores = LEXICAL_ONLY.scores(lexical.coverage, lexical.cosine, None)
    scores = scores - np.float32(LEXICAL_ONLY.threshold - min_score)
    depth = max(k, DEFAULT_DEPTH)
    by_bm25 = top_positions(lexical.bm25, depth, positive_only=True)
    ranked = fuse([(by_bm25, weights.lexical)], scores, k, depth=depth)
    return [Found(r.position, float(scores[r.position]), None) for r in ranked]


def _cosine(cosine_of: dict[int, float], position: int) -> float | None:
    value = cosine_of.get(position)
    return None if value is None or np.isnan(value) else value


def _rows_of(positions: RowArray, rows: RowArray | None) -> RowArray:
    return positions if rows is None else rows[positions]


def _positions(
    found: RowArray, cosines: FloatArray, rows: RowArray | None
) -> tuple[RowArray, FloatArray]:
    """The store's rows as positions among ``rows``, with their cosines. A row outside
    ``rows`` — which a store filtering by scope inside the engine never returns — is dropped
    here too: a check, never the filter."""
    if rows is None:
        return found, cosines
    at = np.minimum(np.searchsorted(rows, found), max(len(rows) - 1, 0))
    inside = rows[at] == found if len(rows) else np.zeros(len(found), bool)
    if not inside.all():
        logger.error("the vector store returned %d passages outside the scope", (~inside).sum())
    return at[inside], cosines[inside]
