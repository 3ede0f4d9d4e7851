"""Clock times written two ways: "10 p.m." and "晚上 10 点" are the "22:00" a policy writes.

An hour followed by p.m. (or after 下午 / 晚上 / 傍晚 / 夜里 and written with 点) also stands
for its 24-hour value, on both sides: an answer's "10 p.m." is grounded by a source's "22:00",
and a source's "10 p.m." grounds an answer's "22:00".
"""

from __future__ import annotations

import re

_PM_AFTER = re.compile(r"\s*(?:p\.m\.|pm\b|PM\b)")
_PM_BEFORE = re.compile(r"(?:下午|晚上|傍晚|夜里|夜间|晚)\s*$")


def afternoon(
    values: frozenset[float], written: str, text: str, start: int, end: int
) -> frozenset[float]:
    """``values`` of the number ``written`` at ``text[start:end]``, with the 24-hour value of
    an afternoon hour added."""
    zh = written.endswith("点") and _PM_BEFORE.search(text, 0, start)
    if not (zh or _PM_AFTER.match(text, end)):
        return values
    return values | {value + 12 for value in values if 0 < value < 12}
