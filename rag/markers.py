"""The citation-marker grammar: how ``[n]`` is written, read once for the whole answer core.

Models write citations in several forms, and every reader of an answer (the checker, the
refusal and recital tests, reviewed answers, ``Answer.cited``) must see the same ones:

- ``[1]``, ``[1][2]`` — one number per bracket;
- ``[1, 2]``, ``[1，2]``, ``[1、2]``, ``[1; 2]`` — a list in one bracket;
- ``[1-3]`` (also ``–``, ``—``, ``~``, ``～``) — a range: 1, 2, 3. A range wider than
  :data:`MAX_RANGE` is read as its two ends (``[1-300]`` is a typo, not 300 citations), and a
  reversed one (``[3-1]``) as the same numbers ascending;
- full-width brackets and digits: ``［1］``, ``【1】``, ``【1，2】``, ``［１］``.

A bracket without a number (``[note]``, ``[a link](x)``) is not a marker, and neither is a
value written in brackets that a source holds as written, such as the status range
``[200, 599]`` of a configuration table (:func:`values_in_parentheses`).

This module imports nothing from the rest of ``rag``, so any module may use it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_DIGIT = "0-9０-９"
_OPEN = "\\[［【"
_CLOSE = "\\]］】"
_LIST = ",，、;；"
_RANGE = "\\-–—~～"

MARKER = re.compile(
    rf"[{_OPEN}]\s*([{_DIGIT}]+(?:\s*[{_LIST}{_RANGE}]\s*[{_DIGIT}]+)*)\s*[{_CLOSE}]"
)
"""One citation marker; group 1 is what is inside the brackets."""

_PART = re.compile(rf"([{_DIGIT}]+)(?:\s*[{_RANGE}]\s*([{_DIGIT}]+))?")
_WIDE_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")

MAX_RANGE = 20
"""``[1-3]`` means 1, 2, 3; a wider range is read as its two ends."""


def marker_numbers(body: str) -> list[int]:
    """The numbers inside one marker's brackets (``MARKER`` group 1), in written order."""
    numbers: list[int] = []
    for match in _PART.finditer(body.translate(_WIDE_DIGITS)):
        first = int(match[1])
        last = int(match[2]) if match[2] else first
        low, high = min(first, last), max(first, last)
        numbers.extend(range(low, high + 1) if high - low <= MAX_RANGE else (low, high))
    return numbers


def values_in_parentheses(text: str, sources: Sequence[str]) -> str:
    """``text`` with each bracket that is a value rather than a citation written ``(…)``.

    A value is a bracket none of whose numbers is a source's (1..``len(sources)``) and whose
    numbers some source writes in brackets too: ``[200, 599]`` copied from a table of status
    codes. Read as markers, a correct answer went to review for citing a "[200]" that does not
    exist; as parentheses its numbers are still checked against the sources like any other.
    A bracket no source writes (``[7]`` with three sources) stays a marker, and is reported."""
    written = {tuple(marker_numbers(m[1])) for source in sources for m in MARKER.finditer(source)}

    def rewrite(match: re.Match[str]) -> str:
        numbers = marker_numbers(match[1])
        if any(1 <= n <= len(sources) for n in numbers) or tuple(numbers) not in written:
            return match[0]
        return f"({match[0][1:-1]})"

    return MARKER.sub(rewrite, text)


def cited_numbers(text: str) -> list[int]:
    """Every number the text cites, ascending, unique (out-of-range ones included)."""
    return sorted({n for match in MARKER.finditer(text) for n in marker_numbers(match[1])})


def without_markers(text: str, replacement: str = " ") -> str:
    """``text`` with every marker replaced (by a space: "A[1]B" must not become one word)."""
    return MARKER.sub(replacement, text)


def first_cited_order(text: str) -> list[int]:
    """The numbers ``text`` cites, in the order they are first cited."""
    seen: dict[int, None] = {}
    for match in MARKER.finditer(text):
        for number in marker_numbers(match[1]):
            seen.setdefault(number, None)
    return list(seen)


def renumbered(text: str, new_number: dict[int, int]) -> str:
    """``text`` with every cited number ``n`` written as ``new_number[n]`` (numbers missing from
    the map are kept); a marker citing several is written ``[1, 2]``, ascending."""

    def rewrite(match: re.Match[str]) -> str:
        numbers = sorted({new_number.get(n, n) for n in marker_numbers(match[1])})
        return "[" + ", ".join(str(n) for n in numbers) + "]"

    return MARKER.sub(rewrite, text)


def in_citation_order(text: str, hits: tuple[T, ...]) -> tuple[str, tuple[T, ...]]:
    """A checked answer's sources renumbered in the order it cites them: the reader meets
    ``[1]`` first and the buttons follow the text, whatever rank retrieval gave the passages
    (a rule ranked third is quoted before the worked example ranked first)."""
    order = [n for n in first_cited_order(text) if 1 <= n <= len(hits)]
    rest = [n for n in range(1, len(hits) + 1) if n not in order]
    new_number = {old: new for new, old in enumerate([*order, *rest], start=1)}
    if all(old == new for old, new in new_number.items()):
        return text, hits
    return renumbered(text, new_number), tuple(hits[old - 1] for old in [*order, *rest])
