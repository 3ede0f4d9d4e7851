"""One amount as a text writes it, and the form values are compared in."""

from __future__ import annotations

from dataclasses import dataclass


def key(value: float) -> float:
    """The comparable form of a value: rounding hides float noise (0.1 * 3 vs 0.3)."""
    return round(abs(value), 6)


@dataclass(frozen=True, slots=True)
class Quantity:
    """One amount as written in a text, with every value it may stand for."""

    text: str
    values: frozenset[float]
    start: int
    end: int
    ordinal: bool = False
    """Written as a rank (``第三次``, ``第 3 级``): grounded by a rank, not by an amount."""
