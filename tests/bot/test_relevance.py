"""Scores are shown to askers and reviewers as a relevance from 0 to 100 (bot/relevance.py)."""

from __future__ import annotations

import math

from bot.relevance import relevance
from rag.search.gate import E5, HASHING, LEXICAL_ONLY


def test_relevance_is_0_to_100_and_rises_with_the_score() -> None:
    scores = [-math.inf, -8.0, -1.5, -0.59, -0.1, 0.0, 0.1, 0.95, 1.43, 8.0, math.inf]
    shown = [relevance(score) for score in scores]
    assert shown == sorted(shown)
    assert shown[0] == 0
    assert shown[-1] == 100
    assert all(0 <= value <= 100 for value in shown)
    assert relevance(0.0) == 50
    assert relevance(math.nan) == 0


def test_a_passage_above_the_refusal_threshold_never_reads_as_irrelevant() -> None:
    # every shipped gate's threshold is a negative score; shown, it is a positive relevance
    for gate in (E5, LEXICAL_ONLY, HASHING):
        assert gate.threshold < 0
        assert 20 <= relevance(gate.threshold) <= 35
