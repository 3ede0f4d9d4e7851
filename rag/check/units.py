"""The unit a number counts in: a Chinese unit or classifier ("三次", "3 个工作日", "4800 元";
dates excepted: "3 月" is March) or the English word right after it ("10 working days",
"450 CNY"). Rules that compare two numbers ask it: two counts are only alike in one unit.
:func:`written_unit` reads the unit as written; :func:`rag.check.durations.unit_of` reads units
of time from it too.

Days come in two kinds a policy keeps apart: working days ("3 个工作日", "10 business days")
and calendar days ("3 个自然日", "10 calendar days"); :func:`day_kind` tells which a number
counts. Plain "天" / "days" say neither.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.check.numbers import UNITS, Quantity
from rag.check.support import content_words
from rag.language import Language

_DATE_UNITS = frozenset({"年", "月", "日", "号"})
_EN_AFTER = re.compile(r"[\s-]*([A-Za-z][A-Za-z'’]*)")
_EN_DAYS = re.compile(r"[\s-]*days?\b", re.IGNORECASE)
_ZH_DAY_KINDS = (("working", "工作日"), ("calendar", "自然日"), ("calendar", "日历日"))
_EN_DAY_KINDS = (
    ("working", re.compile(r"[\s-]*(?:working|business|work)[\s-]?days?\b", re.IGNORECASE)),
    ("calendar", re.compile(r"[\s-]*calendar[\s-]?days?\b", re.IGNORECASE)),
)


@dataclass(frozen=True, slots=True)
class Counted:
    """A number with the unit it counts in."""

    values: frozenset[float]
    unit: str
    shown: str


def written_unit(quantity: Quantity, text: str, *, chinese: bool = False) -> str | None:
    """The unit as written with ``quantity`` (in ``text``): the Chinese unit or classifier
    that ends it ("个月" of "12 个月"), or the English word right after it ("months").
    ``chinese``: read it the Chinese way even where the quantity is digits only."""
    if chinese or not quantity.text.isascii():
        return next((unit for unit in UNITS if quantity.text.endswith(unit)), None)
    after = _EN_AFTER.match(text, quantity.end)
    return after.group(1) if after else None


def count_of(quantity: Quantity, text: str, language: Language) -> Counted | None:
    """``quantity`` (in ``text``) with the unit it counts in, if one follows it."""
    unit = written_unit(quantity, text, chinese=language == "zh")
    if unit is None:
        return None
    if language == "zh" or not quantity.text.isascii():
        if unit in _DATE_UNITS:
            return None
        return Counted(quantity.values, unit, quantity.text.replace(" ", ""))
    after = _EN_AFTER.match(text, quantity.end)
    stems = content_words(unit, "en")
    if not after or len(stems) != 1:
        return None
    days = _EN_DAYS.match(text, after.end())  # "10 working days", not "10 working"
    end = days.end() if days else after.end()
    return Counted(quantity.values, next(iter(stems)), text[quantity.start : end].strip())


def day_kind(quantity: Quantity, text: str) -> str | None:
    """ "working" or "calendar": the kind of days ``quantity`` (in ``text``) counts, if it says."""
    if quantity.text.isascii():
        return next((kind for kind, days in _EN_DAY_KINDS if days.match(text, quantity.end)), None)
    unit = written_unit(quantity, text) or ""
    return next((kind for kind, days in _ZH_DAY_KINDS if unit.endswith(days)), None)


def counted(quantities: Sequence[Quantity], text: str, language: Language) -> list[Counted]:
    """The ``quantities`` of ``text`` that count in a unit, with it ("三次", "10 working")."""
    found = (None if q.ordinal else count_of(q, text, language) for q in quantities)
    return [number for number in found if number is not None]
