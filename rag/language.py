"""Which language a text is in, as far as the answer core cares: Chinese or English.

Only two languages are first-class, so this is a share-of-letters test rather than a
language-identification model: one Chinese ideograph carries about as much meaning as a short
English word, so each ideograph counts for three Latin letters. "refund 怎么算" is Chinese
(the asker writes Chinese and borrows a word); "What does 退费 cover for new students?" is English.
"""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["zh", "en"]

IDEOGRAPH_WEIGHT = 3
"""How many Latin letters one CJK ideograph outweighs when deciding the language."""

# The one CJK character set: every part that asks "is this Chinese (or Japanese, Korean)
# script?" (language, search features, question normalisation, the checker) reads these.
_IDEOGRAPH_RANGES = (
    (0x3400, 0x4DBF),  # CJK Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0x20000, 0x3134F),  # Extensions B-H
)


def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"{chr(low)}-{chr(high)}" for low, high in ranges)


IDEOGRAPHS = _char_class(_IDEOGRAPH_RANGES)
"""The ideographs as the inside of a regex character class: ``rf"[{IDEOGRAPHS}]+"``."""

CJK = _char_class(((0x3040, 0x30FF),)) + IDEOGRAPHS + _char_class(((0xAC00, 0xD7AF),))
"""Scripts written without spaces between words, as a character class' inside: kana,
ideographs, hangul syllables."""

CJK_PUNCTUATION = _char_class(((0x3000, 0x303F),))
"""The ideographic space and CJK punctuation (、。「」), as a character class' inside."""

_IDEOGRAPH = re.compile(f"[{IDEOGRAPHS}]")
_LATIN = re.compile("[A-Za-z]")
"""Counted by the regex engine: a per-character Python loop cost ~0.6 ms per 1,000 characters,
and every question detects the language of its sources many times."""


def is_ideograph(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in _IDEOGRAPH_RANGES)


def has_ideograph(text: str) -> bool:
    return _IDEOGRAPH.search(text) is not None


def detect_language(text: str) -> Language:
    """``"zh"`` when ideographs make up a meaningful share of the letters, else ``"en"``."""
    ideographs = len(_IDEOGRAPH.findall(text))
    latin = len(_LATIN.findall(text))
    if ideographs and ideographs * IDEOGRAPH_WEIGHT >= latin:
        return "zh"
    return "en"
