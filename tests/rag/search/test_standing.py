"""A dense cosine's standing against the question's own background, per passage language."""

from __future__ import annotations

import numpy as np

from rag.search.gate import E5, Standard
from rag.search.standing import MIN_BACKGROUND, MIN_PASSAGES, eligible, standing

BOTH = {True: True, False: True}
"""Both languages with a standing, whatever their count (the corpus rule has a test of its own)."""


def test_a_cosine_is_measured_against_the_passages_of_its_own_language() -> None:
    # Chinese passages sit lower for this (English) question; the best of each language stands
    # out by the same margin over its own kind, not over the other's.
    english = np.linspace(0.80, 0.84, 20, dtype=np.float32)
    chinese = english - 0.06
    dense = np.concatenate([english, chinese])
    is_chinese = np.array([False] * 20 + [True] * 20)
    stood = standing(dense, is_chinese, languages=BOTH)
    assert stood[19] == stood[39]  # each language's best, over its own background
    assert stood[39] > 1.5
    assert stood[0] < 0
    assert stood[20] < 0


def test_a_language_with_too_few_passages_has_no_standing() -> None:
    dense = np.linspace(0.7, 0.9, MIN_BACKGROUND + 3, dtype=np.float32)
    is_chinese = np.zeros(len(dense), np.bool_)
    is_chinese[:3] = True  # three Chinese passages: no background to stand against
    stood = standing(dense, is_chinese, languages=BOTH)
    assert np.isnan(stood[:3]).all()
    assert not np.isnan(stood[3:]).any()


def test_only_known_rows_form_the_background() -> None:
    dense = np.linspace(0.70, 0.90, 32, dtype=np.float32)
    is_chinese = np.zeros(32, np.bool_)
    known = np.arange(32) < 16  # only the weaker half has vectors yet
    stood = standing(dense, is_chinese, known=known, languages=BOTH)
    background = dense[:16].astype(np.float64)
    expected = (dense[31] - background.mean()) / background.std()
    assert abs(float(stood[31]) - expected) < 1e-4
    assert (
        stood[31] > standing(dense, is_chinese, languages=BOTH)[31]
    )  # against all 32 it stands out less


def test_the_gate_leaves_out_a_standing_it_does_not_know() -> None:
    gate = E5
    coverage = np.array([0.6, 0.6], np.float32)
    cosine = np.array([0.3, 0.3], np.float32)
    dense = np.array([0.9, 0.9], np.float32)
    stood = np.array([np.nan, 7.0], np.float32)
    scores = gate.scores(coverage, cosine, dense, stood)
    three = (gate.coverage.z(coverage) + gate.cosine.z(cosine) + gate.dense.z(dense)) / 3  # type: ignore[union-attr]
    assert scores[0] == np.float32(three[0])
    assert scores[1] > scores[0]  # the known standing counts, as a fourth term
    assert gate.standing is not None
    assert isinstance(gate.standing, Standard)


def test_a_language_of_a_small_corpus_has_no_standing() -> None:
    # docs/ (46 passages) is about a few subjects: nothing stands out there as it does in a
    # corpus of thousands of passages, so its passages are weighed without the term.
    small = np.zeros(MIN_PASSAGES - 1, np.bool_)
    assert eligible(small) == {True: False, False: False}
    mixed = np.array([True] * MIN_PASSAGES + [False] * 10)
    assert eligible(mixed) == {True: True, False: False}
    dense = np.linspace(0.7, 0.9, len(mixed), dtype=np.float32)
    stood = standing(dense, mixed)
    assert not np.isnan(stood[:MIN_PASSAGES]).any()
    assert np.isnan(stood[MIN_PASSAGES:]).all()
