"""English amounts written in words: "two", "twenty-one", "one million", "March 3".

Read by :func:`rag.check.numbers.quantities` (strict, the answer side) and
:func:`rag.check.numbers.source_quantities` (generous, the source side), beside the digits.
Scale words are shared with the digits' reading: "1 million", "100k", "$5M" and "two billion"
are the amounts "1,000,000", "100,000", "5000000" and "2,000,000,000" a source may write.
"""

from __future__ import annotations

import re

from rag.check.quantity import Quantity, key
from rag.reading import words

_SCALE_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
SCALES = _SCALE_WORDS | {"k": 1e3, "m": 1e6, "b": 1e9, "bn": 1e9}
"""A scale after an amount, by its lower-case spelling. As a suffix only ``k``, ``K``, ``M``,
``B`` and ``bn`` count (:data:`SCALE_PATTERN`): "5m" is as often five metres as five million."""
_WORDS = "|".join(_SCALE_WORDS)
SCALE_PATTERN = rf"\s?(?:{_WORDS})\b|(?:[kKMB]|bn)\b"
_SCALE_WORD = re.compile(rf"\s+({_WORDS})\b", re.IGNORECASE)

_EN_NUMBERS = {
    word: value
    for value, word in enumerate(
        words(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen"
        )
    )
} | {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
     "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000}  # fmt: skip
EN_NUMBER_WORDS = "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))
"""The number words as one pattern's alternatives, longest first."""
_EN_NUMBER = re.compile(
    r"\b(" + EN_NUMBER_WORDS + r")(?:-(\w+))?\b",
    re.IGNORECASE,
)
_FRACTION = re.compile(
    r"(?:half|halves|thirds?|quarters?|fourths?|fifths?|sixths?|sevenths?|"
    r"eighths?|ninths?|tenths?|hundredths?)",
    re.IGNORECASE,
)
_EN_ONE_UNITS = re.compile(
    r"[\s-]+(?:day|week|month|year|hour|minute|lesson|level|working day|business day)s?\b",
    re.IGNORECASE,
)
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("January", "Jan"), ("February", "Feb"), ("March", "Mar"), ("April", "Apr"),
            ("May",), ("June", "Jun"), ("July", "Jul"), ("August", "Aug"),
            ("September", "Sep", "Sept"), ("October", "Oct"), ("November", "Nov"),
            ("December", "Dec"),
        ),
        start=1,
    )
    for name in names
}  # fmt: skip
_MONTH = re.compile(r"\b(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\b\.?")
_NEAR_DIGIT = re.compile(r"^\s?\d|\d,?\s?$")


def scaled(value: float, scale: str, *, strict: bool) -> set[float]:
    """``value`` followed by ``scale``: strictly only the scaled amount, so that a bare "1"
    elsewhere in a source doesn't ground "1 million"; generously both readings."""
    amount = value * SCALES[scale.strip().lower()]
    return {amount} if strict else {value, amount}


def english(text: str, *, strict: bool) -> list[Quantity]:
    """Number words and months (strict: months only beside a day or year)."""
    return _number_words(text, strict=strict) + _months(text, strict=strict)


def _number_words(text: str, *, strict: bool) -> list[Quantity]:
    found: list[Quantity] = []
    read_to = 0
    for match in _EN_NUMBER.finditer(text):
        value, (start, end) = _EN_NUMBERS[match[1].lower()], match.span()
        if start < read_to:
            continue  # the scale of the number before ("two thousand")
        if match[2]:
            tail = _EN_NUMBERS.get(match[2].lower())
            if (tail is not None and tail >= 10) or _FRACTION.fullmatch(match[2]):
                continue  # "two-thirds" is a fraction, not 2
            if tail is None:
                end = match.end(1)  # "two-week", "two-factor": the number is "two"
            else:
                value += tail  # "twenty-one"
        values = {float(value)}
        if scale := _SCALE_WORD.match(text, end):
            values, end = scaled(value, scale[1], strict=strict), scale.end()
        elif strict and value == 1 and not _EN_ONE_UNITS.match(text, end):
            continue  # "one of", "no one": a pronoun, not a count
        read_to = end
        found.append(Quantity(text[start:end], frozenset(map(key, values)), start, end))
    return found


def _months(text: str, *, strict: bool) -> list[Quantity]:
    found: list[Quantity] = []
    for match in _MONTH.finditer(text):
        around = (
            text[max(0, match.start() - 3) : match.start()],
            text[match.end() : match.end() + 2],
        )
        if strict and not any(_NEAR_DIGIT.search(side) for side in around):
            continue  # "May" the verb; a month counts when a day or year stands beside it
        month = _MONTHS[match[1]]
        found.append(Quantity(match.group(), frozenset({key(float(month))}), *match.span()))
    return found
