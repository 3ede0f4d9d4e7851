"""The numbers a source mentions, read generously: whatever a passage writes may ground an answer.

The answer side is read strictly by :func:`rag.check.numbers.quantities`; a source is read for
every numeral it writes, with or without a unit, so a faithful answer is never blamed for how
the source spelled a number. Ranks and list numbering are kept apart (see :func:`number_values`).
"""

from __future__ import annotations

import re

from rag.check.numbers import chinese_value, key, normalise_digits, source_quantities
from rag.lines import NUMBERING

LIST_NUMBERING = re.compile(rf"^[ \t>*#-]*(?:{NUMBERING})", re.MULTILINE)
"""A line's numbering ("3. ", "(2)", "三、"): it orders a list, it states no amount."""


def number_values(text: str, *, ordinals: bool = False) -> frozenset[float]:
    """Every amount a source mentions (generous reading), for grounding answers against it.

    Ranks — ``第三次``, and list numbering such as "3. 流利级" or "三、退费计算口径" — are left
    out unless ``ordinals`` is set: "免费转班三次" is not grounded by "第三次起收费", nor
    "两个月" by an item numbered "2.", while "Level 3" may be grounded by "3. 流利级".
    """
    amounts, ranks = number_readings(text)
    return ranks if ordinals else amounts


def number_readings(text: str) -> tuple[frozenset[float], frozenset[float]]:
    """Both readings of :func:`number_values` (amounts; amounts and ranks) from one pass over
    ``text``: a cited web page of 30,000 characters is read once, not twice."""
    text = normalise_digits(text)
    found = source_quantities(text)
    numbering = list(LIST_NUMBERING.finditer(text))
    starts = {at for match in numbering for at in range(*match.span())}
    amounts = frozenset(
        v for q in found if not q.ordinal and q.start not in starts for v in q.values
    )
    listed = (v for match in numbering for v in _listed(match.group()))
    return amounts, frozenset(v for q in found for v in q.values).union(listed)


def _listed(marker: str) -> set[float]:
    digits = re.search(r"\d+", marker)
    if digits:
        return {key(float(digits.group()))}
    value = chinese_value(marker.strip(" \t>*#-、"))
    return set() if value is None else {key(value)}
