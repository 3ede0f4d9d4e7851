"""Whether each number a sentence states is grounded, and by what.

A quantity is grounded by the amounts its cited sources write (a rank, "第三次" or "Level 3",
also by their ranks and list numbering), by the question's numbers ("还剩 12 课时"), by the
result of a correct calculation written in the answer, or as a duration its sources or the
question state in another unit ("1 year" from "12 months", :mod:`rag.check.durations`). The
stated result of a wrong calculation is not blamed twice: ``wrong_arithmetic`` names it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rag.check.arithmetic import Calculation
from rag.check.durations import converted
from rag.check.numbers import Quantity


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
    given: Given,
) -> list[Quantity]:
    """The ``quantities`` of a sentence (``plain``) that nothing grounds. ``amounts`` and
    ``ranks``: what its cited sources write; ``durations``: theirs, read only when needed."""
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
    return [q for q in missing if q.ordinal or not converted(q, plain, held)]


def _grounded(quantity: Quantity, allowed: frozenset[float], calcs: Sequence[Calculation]) -> bool:
    if quantity.values & allowed:
        return True
    # The stated result of a wrong calculation: wrong_arithmetic already names it.
    return any(quantity.values <= calc.claimed for calc in calcs if not calc.ok)
