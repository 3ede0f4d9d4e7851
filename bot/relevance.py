"""What people are shown of a source's score: a relevance from 0 to 100, never the raw number.

The gate's score (:mod:`rag.search.gate`) is a mean of standardised similarities: about 0 for
a typical first source of an answered question, negative for weaker ones; the bot refuses below
a threshold a little under 0 (e5: -0.2). Shown as is, a cited passage reads "相关度 -0.12",
which askers and reviewers take as "irrelevant". The standard normal CDF maps it monotonically
onto 0–100 — about 40–45 at the refusal bar, 50 for a typical answer's first source, 70 and more
for a passage that closely answers — so a higher score always shows a higher relevance, the
order of sources is kept, and what the bot answers from reads at least about half relevant.
Developers still see the raw score in ``python -m rag ask``.
"""

from __future__ import annotations

import math


def relevance(score: float) -> int:
    """0–100, rising with ``score``; 50 at a score of 0."""
    if math.isnan(score):
        return 0
    return round(50 * (1 + math.erf(score / math.sqrt(2))))
