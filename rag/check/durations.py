"""A duration the answer writes in another unit than its source: "12 months" is "1 year".

The number rule grounds an amount by its value; a faithful answer that converts a duration
("a one-year warranty" from "保修 12 个月", "within two weeks" from "14 days", "24 小时" from
"one day") would otherwise be blamed for a number its source never wrote. Only conversions
that are exact count: minutes, hours, days and weeks on one scale; months and years on another.
A month is not 30 days, nor a year 52 weeks, so "30 天" does not ground "一个月".

A quantity's unit is read where it is written (:func:`rag.check.units.written_unit`, which
the rules that compare counts read too): the word right after an English number
("12 months", "a 12-month plan"), the unit inside a Chinese quantity ("12 个月", "两周"). Two
Chinese readings are left out because they are dates, not durations: "3 月" (March) and a
"年" after a four-digit number ("2024 年").
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from rag.check.numbers import Quantity, normalise_digits, source_quantities
from rag.check.units import written_unit

MINUTES = {"minute": 1, "hour": 60, "day": 24 * 60, "week": 7 * 24 * 60}
MONTHS = {"month": 1, "year": 12}

_EN_UNITS = {
    **{unit: unit for unit in ("year", "month", "week", "day", "hour", "minute")},
    "yr": "year",
    "hr": "hour",
    "min": "minute",
}
_ZH_UNITS = {
    "年": "year",
    "个月": "month",
    "周": "week",
    "星期": "week",
    "个星期": "week",
    "天": "day",
    "小时": "hour",
    "个小时": "hour",
    "钟头": "hour",
    "个钟头": "hour",
    "分钟": "minute",
}
FIRST_YEAR_DATE = 1000
"""A "年" after a number this large is a calendar year (2024 年), not a count of years."""


def unit_of(quantity: Quantity, text: str) -> str | None:
    """The duration unit ``quantity`` counts in ``text`` (``"month"``), if it counts one."""
    written = written_unit(quantity, text)
    if written is None:
        return None
    if not quantity.text.isascii():
        unit = _ZH_UNITS.get(written)
        if unit == "year" and max(quantity.values, default=0.0) >= FIRST_YEAR_DATE:
            return None
        return unit
    return _EN_UNITS.get(written.lower().rstrip("'’").removesuffix("s"))


def durations(text: str) -> frozenset[tuple[float, str]]:
    """Every (value, unit) duration ``text`` writes (read generously, as sources are)."""
    text = normalise_digits(text)
    found: set[tuple[float, str]] = set()
    for quantity in source_quantities(text):
        unit = unit_of(quantity, text)
        if unit is not None and not quantity.ordinal:
            found.update((value, unit) for value in quantity.values)
    return frozenset(found)


def converted(quantity: Quantity, text: str, held: Iterable[tuple[float, str]]) -> bool:
    """Whether ``quantity`` (in ``text``) is a duration that ``held`` states in another unit of
    the same scale with the same length."""
    unit = unit_of(quantity, text)
    if unit is None:
        return False
    scale = MINUTES if unit in MINUTES else MONTHS
    lengths = {value * scale[unit] for value in quantity.values}
    return any(
        other != unit
        and other in scale
        and any(math.isclose(value * scale[other], length) for length in lengths)
        for value, other in held
    )
