"""A written-out sum or product whose parts, as the sentence states them, don't come to it;
a stated difference that is not the difference of the two amounts it compares.

"笔试 10 分钟、口试 10 分钟，共 20 + 10 = 30 分钟": the sum is right and every number is in the
source (笔试 20 分钟, 口试 10 分钟), yet the sentence gives the written test the oral test's 10
minutes. Every other rule passes it: the arithmetic rule checks the formula, not the parts the
sentence lists before it. Here, when a correct sum of n amounts (``a + b = c``, nothing but
additions on its left) follows exactly n amounts in the sum's unit in the same sentence, those
amounts must add up to the sum. Fewer or more amounts than terms, or other units, and the
sentence is not read as parts and their total (a fee, then a refund formula over lessons).
A product is read the same way, its factors in any units ("350 CNY per night … for 2 nights
that is 2 × 450 = 900 CNY": the stated rate and count make 700). Numbers inside the
sentence's other formulas are not parts it states, and a formula mixing operations is left
to the arithmetic rule.

Likewise "商务级课程费 5600 元，比流利级的 4800 元贵 280 元": the difference is written without
a formula (so the arithmetic rule has nothing to check) and 280 is in the source (the book
fee). When a sentence that compares ("比", "than") states exactly three amounts in one unit and
one of them is the difference ("贵 280 元", "800 CNY more"), it must be the difference of the
other two.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.check.arithmetic import Calculation, close
from rag.check.numbers import Quantity
from rag.check.units import count_of
from rag.language import detect_language

MAX_PARTS = 6
"""More terms than this are not a list of parts a sentence states one by one."""
_COMPARES = re.compile(r"比|\bthan\b", re.IGNORECASE)
_BY_ZH = re.compile(r"(?<![至最不])(?:贵|便宜|多|少|高|低|长|短)了?\s*$")
_BY_EN = re.compile(
    r"\s*(?!or\b)(?:[A-Za-z]+\s+)?(?:more|less|fewer|higher|lower|cheaper|longer|shorter)\b",
    re.IGNORECASE,
)
"""A difference: "贵 800 元" (the word before it), "800 CNY more" (the word or two after it);
not a bound ("至少 10 天", "最多 5 天", "5 days or more")."""


@dataclass(frozen=True, slots=True)
class Unsummed:
    """The amounts a sentence states as the terms of a sum (or factors of a product), and
    what they really come to."""

    parts: tuple[Quantity, ...]
    added: float
    total: float
    operator: str = "+"
    """``+`` for a sum, ``×`` for a product."""


def unsummed(
    plain: str, found: Sequence[Quantity], calc: Calculation, calcs: Sequence[Calculation] = ()
) -> Unsummed | None:
    """The parts ``plain`` (its quantities: ``found``) states before ``calc`` when they don't
    come to its result (the numbers of the sentence's other calculations, ``calcs``, are not
    parts it states)."""
    start, terms, operators = calc.start, calc.terms, calc.operators
    if not calc.ok or operators not in ({"+"}, {"*"}) or not 2 <= len(terms) <= MAX_PARTS:
        return None
    language = detect_language(plain)
    spans = [(c.start, c.start + len(c.text)) for c in calcs]
    before = [
        q
        for q in found
        if q.end <= start
        and not q.ordinal
        and not any(a <= q.start < b for a, b in spans)
        and not _is_difference(q, plain)  # "贵 800 元" states no part of a sum
    ]
    if operators == {"*"}:  # a rate times a count: the factors come in different units
        parts = tuple(before)
        results = [math.prod(choice) for choice in _choices(parts)]
    else:
        inside = [q for q in found if start <= q.start < start + len(calc.text)]
        total = count_of(inside[-1], plain, language) if inside else None
        if total is None:
            return None
        parts = tuple(
            q
            for q in before
            if (counted := count_of(q, plain, language)) is not None and counted.unit == total.unit
        )
        results = [sum(choice) for choice in _choices(parts)]
    if len(parts) != len(terms) or any(close(value, calc.sides[-1]) for value in results):
        return None
    return Unsummed(parts, results[0], calc.sides[-1], "×" if operators == {"*"} else "+")


def _choices(parts: tuple[Quantity, ...]) -> list[tuple[float, ...]]:
    """Every reading of the parts, one value each (a quantity may stand for several)."""
    return list(itertools.product(*(sorted(q.values) for q in parts)))


@dataclass(frozen=True, slots=True)
class Misstated:
    """A difference a sentence states, and the two amounts it compares."""

    difference: Quantity
    compared: tuple[Quantity, Quantity]


def misstated_difference(plain: str, found: Sequence[Quantity]) -> Misstated | None:
    """The difference ``plain`` (its quantities: ``found``) states when it is not that of the
    two amounts it compares (only in a sentence with no written-out calculation: the
    arithmetic rule reads those)."""
    if not _COMPARES.search(plain):
        return None
    language = detect_language(plain)
    by_unit: dict[str, list[Quantity]] = {}
    for q in found:
        counted = None if q.ordinal else count_of(q, plain, language)
        if counted is not None:
            by_unit.setdefault(counted.unit, []).append(q)
    for amounts in by_unit.values():
        marked = [q for q in amounts if _is_difference(q, plain)]
        if len(amounts) != 3 or len(marked) != 1:
            continue
        a, b = (q for q in amounts if q is not marked[0])
        gaps = [abs(x - y) for x in a.values for y in b.values]
        if not any(close(gap, value) for gap in gaps for value in marked[0].values):
            return Misstated(marked[0], (a, b))
    return None


def _is_difference(quantity: Quantity, plain: str) -> bool:
    before = plain[max(0, quantity.start - 4) : quantity.start]
    if _BY_ZH.search(before):
        return True
    unit_end = re.match(r"\s*[A-Za-z]+", plain[quantity.end :])
    after = quantity.end + (unit_end.end() if unit_end else 0)
    return _BY_EN.match(plain, after) is not None
