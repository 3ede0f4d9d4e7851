"""Reciprocal-rank fusion: order, weights, tie-breaking by a real score, then by row."""

from __future__ import annotations

import numpy as np
import pytest

from rag.search.fusion import RRF_K, fuse, top_positions


def rows(*values: int) -> np.ndarray:
    return np.asarray(values, np.intp)


def scores(*values: float) -> np.ndarray:
    return np.asarray(values, np.float32)


def test_a_row_both_rankings_agree_on_comes_first() -> None:
    ranked = fuse([(rows(2, 0, 1), 1.0), (rows(2, 1, 0), 1.0)], scores(0, 0, 0), 3)
    assert [r.position for r in ranked] == [2, 0, 1]
    assert [r.rank for r in ranked] == [1, 2, 3]
    assert ranked[0].fused == pytest.approx(2 / (RRF_K + 1))


def test_equal_fused_values_are_broken_by_the_tie_break_score() -> None:
    # Row 0 is 1st lexically and 2nd densely, row 1 the reverse: equal fused values.
    rankings = [(rows(0, 1), 1.0), (rows(1, 0), 1.0)]
    assert [r.position for r in fuse(rankings, scores(0.1, 0.9), 2)] == [1, 0]
    assert [r.position for r in fuse(rankings, scores(0.9, 0.1), 2)] == [0, 1]


def test_full_ties_fall_back_to_index_order_so_numbering_never_drifts() -> None:
    rankings = [(rows(3, 1), 1.0), (rows(1, 3), 1.0)]
    for _ in range(3):
        assert [r.position for r in fuse(rankings, scores(0, 0.5, 0, 0.5), 2)] == [1, 3]


def test_the_heavier_ranking_wins_a_disagreement() -> None:
    rankings = [(rows(0, 1), 2.0), (rows(1, 0), 1.0)]
    assert fuse(rankings, scores(0, 1), 2)[0].position == 0


def test_rows_missing_from_every_ranking_are_filled_in_by_the_tie_break() -> None:
    ranked = fuse([(rows(2), 1.0)], scores(0.3, 0.9, 0.1, 0.5), 3)
    assert [r.position for r in ranked] == [2, 1, 3]
    assert ranked[1].fused == 0.0


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match=r"k \(0\)"):
        fuse([(rows(0), 1.0)], scores(1), 0)


def test_top_positions_orders_by_score_then_row() -> None:
    values = scores(0.5, 0.9, 0.5, 0.0, 0.9)
    assert top_positions(values, 4).tolist() == [1, 4, 0, 2]
    assert top_positions(values, 10, positive_only=True).tolist() == [1, 4, 0, 2]
