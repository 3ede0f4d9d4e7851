"""A written-out sum whose parts, as the sentence states them, don't add up to it.

"笔试 10 分钟、口试 10 分钟，共 20 + 10 = 30 分钟": the sum is right and every number is in the
source (笔试 20 分钟, 口试 10 分钟), yet the sentence gives the written test the oral test's 10
minutes. Every other rule passes it: the arithmetic rule checks the formula, not the parts the
sentence lists before it. Here, when a correct sum of n amounts (``a + b = c``, nothing but
additions on its left) follows exactly n amounts in the sum's unit in the same sentence, those
amounts must add up to the sum. Fewer or more amounts than terms, or other units, and the
sentence is not read as parts and their total (a fee, then a refund formula over lessons).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from rag.check.arithmetic import Calculation, close, normalise
from rag.check.numbers import Quantity, quantities
from rag.check.units import count_of
from rag.language import detect_language

MAX_PARTS = 6
"""More terms than this are not a list of parts a sentence states one by one."""
_SIDE_BREAK = re.compile(r"[=≈]")
_TERM = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
_NOT_A_SUM = re.compile(r"[-*/()]")


@dataclass(frozen=True, slots=True)
class Unsummed:
    """The amounts a sentence states as the parts of a sum, and what they really add up to."""

    parts: tuple[Quantity, ...]
    added: float
    total: float


def unsummed(plain: str, calc: Calculation) -> Unsummed | None:
    """The parts ``plain`` states before ``calc`` when they don't add up to its result."""
    start = plain.find(calc.text)
    left = _SIDE_BREAK.split(normalise(calc.text), 1)[0]
    terms = _TERM.findall(left)
    if not calc.ok or start < 0 or _NOT_A_SUM.search(left) or not 2 <= len(terms) <= MAX_PARTS:
        return None
    language = detect_language(plain)
    found = quantities(plain)
    inside = [q for q in found if start <= q.start < start + len(calc.text)]
    total = count_of(inside[-1], plain, language) if inside else None
    if total is None:
        return None
    parts = tuple(
        q
        for q in found
        if q.end <= start
        and not q.ordinal
        and (counted := count_of(q, plain, language)) is not None
        and counted.unit == total.unit
    )
    if len(parts) != len(terms):
        return None
    sums = [sum(choice) for choice in itertools.product(*(sorted(q.values) for q in parts))]
    if any(close(added, calc.sides[-1]) for added in sums):
        return None
    return Unsummed(parts, sums[0], calc.sides[-1])
