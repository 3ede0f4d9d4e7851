"""What people are shown of a source's score: a relevance from 0 to 100, never the raw number.

The gate's score (:mod:`rag.search.gate`) is a mean of standardised similarities: about 0 for
a typical first source, negative for weaker ones ("-0.59" is the shipped threshold). Shown as
is, a cited passage reads "相关度 -0.59", which askers and reviewers take as "irrelevant".
The standard normal CDF maps it monotonically onto 0–100 (a typical first source is 50, the
refusal threshold about 28), so a higher score always shows a higher relevance and the
order of sources is kept. Developers still see the raw score in ``python -m rag ask``.
"""

from __future__ import annotations

import math


def relevance(score: float) -> int:
    """0–100, rising with ``score``; 50 at a score of 0."""
    if math.isnan(score):
        return 0
    return round(50 * (1 + math.erf(score / math.sqrt(2))))
