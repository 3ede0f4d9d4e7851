"""Reciprocal-rank fusion of the lexical and the dense ranking.

Each ranking contributes ``weight / (RRF_K + rank)`` for its best ``depth`` chunks. Ranks,
not scores, are fused, so BM25's unbounded values and e5's compressed cosines need no common
scale; the weights are the caller's (:mod:`rag.search.index` holds the measured ones).
Fused values tie often (a chunk 1st in one list and 3rd in the other equals the reverse),
so ties are broken by a real relevance score — the gate's — and only then by index order,
which keeps the result deterministic.

:mod:`rag.search.index` fuses by rank only where no common scale exists: lexical-only search and
embedders the gate has no constants for. With a measured embedder (e5) it ranks by the gate's
standardised score instead, which measured better on cmrc2018-trial.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]
RowArray = npt.NDArray[np.intp]

RRF_K = 60
"""The usual RRF constant: damps the difference between rank 1 and rank 2 of one list."""
DEFAULT_DEPTH = 100
"""How many chunks of each ranking take part; beyond that a rank adds almost nothing."""


@dataclass(frozen=True, slots=True)
class Ranked:
    position: int
    """Row of the chunk in the index."""
    rank: int
    """Position in the fused ranking, from 1."""
    fused: float
    """Sum of the reciprocal ranks; only meaningful for ordering, never for gating."""


def top_positions(scores: FloatArray, depth: int, *, positive_only: bool = False) -> RowArray:
    """Rows of the ``depth`` highest scores, best first, ties by row (stable)."""
    candidates = np.flatnonzero(scores > 0) if positive_only else np.arange(len(scores))
    if len(candidates) > depth:
        threshold = np.partition(scores[candidates], -depth)[-depth]
        candidates = candidates[scores[candidates] >= threshold]
    order = np.lexsort((candidates, -scores[candidates]))
    return candidates[order][:depth]


def fuse(
    rankings: Sequence[tuple[RowArray, float]],
    tie_break: FloatArray,
    k: int,
    *,
    depth: int = DEFAULT_DEPTH,
) -> list[Ranked]:
    """The ``k`` best rows by weighted RRF over ``rankings``: (rows best first, weight) pairs.

    When the rankings hold fewer than ``k`` rows (a query sharing no term with any chunk in
    lexical-only mode), the rest is filled by ``tie_break`` so callers always get ``k`` rows
    (or all of them when there are fewer).
    """
    if k < 1:
        msg = f"k ({k}) must be at least 1"
        raise ValueError(msg)
    fused: dict[int, float] = {}
    for ranking, weight in rankings:
        for rank, row in enumerate(ranking[:depth].tolist(), start=1):
            fused[row] = fused.get(row, 0.0) + weight / (RRF_K + rank)
    rows = np.fromiter(fused, np.intp, len(fused))
    values = np.fromiter(fused.values(), np.float64, len(fused))
    # lexsort: the last key is primary -> fused desc, then tie_break desc, then row asc.
    order = rows[np.lexsort((rows, -tie_break[rows].astype(np.float64), -values))][:k]
    if len(order) < k:
        filler = [r for r in top_positions(tie_break, k + len(order)).tolist() if r not in fused]
        order = np.concatenate([order, np.asarray(filler, np.intp)])[:k]
    return [
        Ranked(position=int(row), rank=rank, fused=fused.get(int(row), 0.0))
        for rank, row in enumerate(order.tolist(), start=1)
    ]
