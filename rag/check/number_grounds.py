"""Whether each number a sentence states is grounded, and by what.

A quantity is grounded by the amounts its cited sources write (a rank, "第三次" or "Level 3",
also by their ranks and list numbering), by the question's numbers ("还剩 12 课时"), by the
result of a correct calculation written in the answer, as a duration its sources or the
question state in another unit ("1 year" from "12 months", :mod:`rag.check.durations`), or as
the sum or difference of two grounded amounts of its sentence ("比流利级的 4800 元贵 800 元"), or
as the number of items of a list the sentence gives (:mod:`rag.check.counted`). The
stated result of a wrong calculation is not blamed twice: ``wrong_arithmetic`` names it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.check.arithmetic import Calculation
from rag.check.counted import counts_own_list
from rag.check.durations import converted
from rag.check.numbers import Quantity
from rag.check.units import count_of
from rag.language import detect_language

MIN_DERIVED = 10
MAX_DERIVED_FROM = 3
"""More amounts than this in a sentence, and some pair adds up to almost anything."""
_COMPARES = re.compile(
    r"比|贵|便宜|差|共|合计|总计|加上|\b(?:than|difference|total|sum|plus|together|combined)\b",
    re.IGNORECASE,
)
"""Words of a sentence that compares two amounts or adds them up."""


@dataclass(frozen=True, slots=True)
class Given:
    """What grounds a number besides the cited sources: the question's numbers ("from Stage 3"
    grounds "Stage 3") and durations, and results of correct arithmetic in the answer."""

    numbers: frozenset[float]
    durations: frozenset[tuple[float, str]]
    produced: frozenset[float]


def ungrounded(
    quantities: Sequence[Quantity],
    plain: str,
    calcs: Sequence[Calculation],
    *,
    amounts: frozenset[float],
    ranks: frozenset[float],
    durations: Callable[[], frozenset[tuple[float, str]]],
    texts: Callable[[], Sequence[str]],
    given: Given,
    listed_below: int = 0,
) -> list[Quantity]:
    """The ``quantities`` of a sentence (``plain``) that nothing grounds. ``amounts`` and
    ``ranks``: what its cited sources write; ``durations`` and ``texts``: theirs, read only
    when needed; ``listed_below``: the items under the sentence when it is a lead-in."""
    amounts_allowed = amounts | given.numbers | given.produced
    ranks_allowed = amounts_allowed | ranks
    missing = [
        q
        for q in quantities
        if not _grounded(q, ranks_allowed if q.ordinal else amounts_allowed, calcs)
    ]
    if not missing:
        return missing
    held = given.durations | durations()
    missing = [q for q in missing if q.ordinal or not converted(q, plain, held)]
    stated = [q for q in quantities if q not in missing and not q.ordinal]
    return [
        q
        for q in missing
        if q.ordinal
        or not (_derived(q, stated, plain) or counts_own_list(q, plain, texts, listed_below))
    ]


def _derived(quantity: Quantity, stated: Sequence[Quantity], plain: str) -> bool:
    """Whether ``quantity`` is the sum or difference of two grounded amounts of the same
    sentence, written without the formula ("5600 元，比流利级的 4800 元贵 800 元"): only in a
    sentence that compares or totals few amounts, only for amounts of at least MIN_DERIVED
    (a small number is the difference of some pair far too often to tell anything), and only
    of amounts counted in its own unit (:mod:`rag.check.units`): "10 月 … 5 月 … 共 15 年" adds
    nothing up, nor do "60 节" and "3 部分" make "63%"."""
    if not _COMPARES.search(plain) or sum(len(q.values) for q in stated) > MAX_DERIVED_FROM:
        return False
    language = detect_language(plain)
    own = count_of(quantity, plain, language)
    if own is None:
        return False
    alike = (count_of(q, plain, language) for q in stated)
    values = [v for number in alike if number and number.unit == own.unit for v in number.values]
    return any(
        target >= MIN_DERIVED and math.isclose(target, result)
        for i, a in enumerate(values)
        for b in values[i + 1 :]
        for result in (a + b, abs(a - b))
        for target in quantity.values
    )


def _grounded(quantity: Quantity, allowed: frozenset[float], calcs: Sequence[Calculation]) -> bool:
    if quantity.values & allowed:
        return True
    # The stated result of a wrong calculation: wrong_arithmetic already names it.
    return any(quantity.values <= calc.claimed for calc in calcs if not calc.ok)
