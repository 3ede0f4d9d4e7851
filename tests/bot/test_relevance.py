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


def test_a_passage_at_the_refusal_threshold_reads_as_about_half_relevant() -> None:
    # Every shipped gate refuses below a score a little under 0: shown, the bar is a relevance
    # of 30–50, so a source the bot answered from never reads as irrelevant, nor one it would
    # have refused as very relevant.
    for gate in (E5, LEXICAL_ONLY, HASHING):
        assert -0.6 < gate.threshold < 0
        assert 25 <= relevance(gate.threshold) <= 50
