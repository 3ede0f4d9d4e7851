"""Work the answer path repeats for every question, kept off the event loop's critical path.

bench/load.py (profiled) showed Slack's acks queueing behind the citation checker: it
re-detected each cited source's language once per sentence group, scanning the whole chunk
each time, and language detection walked every character through four range tests. These pin
the cheaper behaviour without timing anything.
"""

from __future__ import annotations

import sys
from collections import Counter

import pytest

import rag.check
from rag.check.citations import check
from rag.language import IDEOGRAPH_WEIGHT, detect_language
from tests.rag.factories import policy_hits

ANSWER = (
    "退费是按剩余课时来计算的[1]。退费时会收取退款金额 5% 的手续费，最低 50 元[1]。\n\n"
    "口语课一共分为四个级别：入门级、进阶级、高阶级、流利级[2]。"
    "每个级别有 16 课时，每课时 45 分钟[2]。\n\n"
    "Full-time employees get 20 days of paid annual leave each year [3]. "
    "Any unused leave expires on 31 March of the next year [3]."
)
"""In the answer's own words: a sentence quoted word for word passes the claim rules without
reading its source's language (:mod:`rag.check.verbatim`)."""

_RANGES = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x3134F))


def reference_language(text: str) -> str:
    """The definition detect_language implements (rag/language.py docstring)."""
    ideographs = sum(1 for c in text if any(lo <= ord(c) <= hi for lo, hi in _RANGES))
    latin = sum(1 for c in text if c.isascii() and c.isalpha())
    return "zh" if ideographs and ideographs * IDEOGRAPH_WEIGHT >= latin else "en"


def test_the_checker_reads_each_sources_language_once(monkeypatch: pytest.MonkeyPatch) -> None:
    hits = policy_hits()
    seen: Counter[str] = Counter()

    def counting(text: str) -> str:
        seen[text] += 1
        return detect_language(text)

    # Every checker module that calls detect_language, wherever the reading moves to: a patch
    # of one module the code no longer calls would pass on an empty counter.
    patched = [
        module
        for name, module in sorted(sys.modules.items())
        if name.startswith(rag.check.__name__) and getattr(module, "detect_language", None)
    ]
    assert patched
    for module in patched:
        monkeypatch.setattr(module, "detect_language", counting)
    check(ANSWER, hits)
    # The answer cites all three sources, and each source's language matters to the rules
    # (claim windows, names): read once each, never once per sentence group.
    assert [seen[hit.chunk.text] for hit in hits] == [1, 1, 1], seen


@pytest.mark.parametrize(
    "point",
    sorted({p + d for lo, hi in _RANGES for p in (lo, hi) for d in (-1, 0, 1)} | {0x41, 0x7A}),
)
def test_language_detection_matches_its_definition_at_every_range_edge(point: int) -> None:
    char = chr(point)
    for text in (char, char * 3 + "abcdefghi", "ab" + char, char + "ＡＢ"):
        assert detect_language(text) == reference_language(text)
