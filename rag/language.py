"""Which language a text is in, as far as the answer core cares: Chinese or English.

Only two languages are first-class, so this is a share-of-letters test rather than a
language-identification model: one Chinese ideograph carries about as much meaning as a short
English word, so each ideograph counts for three Latin letters. "refund 怎么算" is Chinese
(the asker writes Chinese and borrows a word); "What does 退费 cover for new students?" is English.

A text in both scripts is judged by its *prose*: what it quotes (```code```, `code`, "…", “…”,
'…', 「…」), identifiers (``weighted_upstreams``, ``core.log.info``, ``limit-count``,
``maxRetries``), paths and URLs, and runs that read as an error message (``ModuleNotFoundError:
…``, ``nginx: [emerg] …``, ``failed to …``) are not what the asker writes in. Without that,
"启动报错 "failed to fetch data from etcd cluster, connection refused" 怎么办" counted 56 Latin
letters against 5 ideographs and was answered in English. A text that is all quotes and
identifiers is judged whole.
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

_QUOTED = (
    r"```.*?```",
    r"`[^`\n]*`",
    r'"[^"\n]*"',
    r"“[^”\n]*”",
    r"‘[^’\n]*’",
    r"「[^」\n]*」",
    r"『[^』\n]*』",
    r"(?<![A-Za-z0-9])'[^'\n]*'(?![A-Za-z0-9])",  # not an apostrophe: don't, it's
)
_NAMES = (
    r"https?://\S+",
    r"[\w.-]*/[\w./-]*",  # paths: /root, conf/config.yaml
    r"\b[A-Za-z0-9]+(?:[_.:-]+[A-Za-z0-9]+)*[_.-]+[A-Za-z0-9]+\b",  # snake, dotted, kebab
    r"\b[a-z]+[A-Z][A-Za-z0-9]*\b",  # camelCase
    r"\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b",  # PascalCase: CamelCase class names
)
# re.ASCII: \b and \w are ASCII-only, so "里weighted_upstreams" has a boundary after 里.
_DISCOUNTED = re.compile("|".join(_QUOTED + _NAMES), re.ASCII | re.DOTALL)

_OUTSIDE_PROSE = f"{IDEOGRAPHS}\u3000-\u303f\uff00-\uffef"
_RUN = re.compile(f"[^{_OUTSIDE_PROSE}]+")
"""A stretch of text between ideographs or CJK punctuation."""
_ERROR_START = re.compile(
    r"\s*(?:"
    r"[\w.]*(?:Error|Exception|Warning)\b"  # ModuleNotFoundError, java.io.IOException
    r"|(?:error|err|fatal|panic|exception|traceback|warning|warn|failed|failure)\b"
    r"|\w+:\s*\[\w+\]"  # nginx: [emerg] ...
    r"|\[(?:emerg|alert|crit|error|warn)\]"
    r"|E[A-Z]{3,}\b"  # ECONNREFUSED
    r")",
    re.ASCII | re.IGNORECASE,
)
"""How an error message starts; prose rarely starts a clause between Chinese words this way."""


def is_ideograph(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in _IDEOGRAPH_RANGES)


def has_ideograph(text: str) -> bool:
    return _IDEOGRAPH.search(text) is not None


def detect_language(text: str) -> Language:
    """``"zh"`` when ideographs make up a meaningful share of the letters of its prose, else
    ``"en"``."""
    ideographs = len(_IDEOGRAPH.findall(text))
    latin = len(_LATIN.findall(text))
    if ideographs and latin:
        prose = _prose(text)
        prose_ideographs = len(_IDEOGRAPH.findall(prose))
        prose_latin = len(_LATIN.findall(prose))
        if prose_ideographs or prose_latin:
            ideographs, latin = prose_ideographs, prose_latin
    if ideographs and ideographs * IDEOGRAPH_WEIGHT >= latin:
        return "zh"
    return "en"


def _prose(text: str) -> str:
    """``text`` without what is quoted, named or reported in it (see the module docstring)."""
    text = _DISCOUNTED.sub(" ", text)
    return _RUN.sub(_unless_error, text)


def _unless_error(run: re.Match[str]) -> str:
    return " " if _ERROR_START.match(run.group()) else run.group()
