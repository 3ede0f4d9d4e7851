"""Where an answer talks about its sources rather than the subject: "Based on the given
context, …", "there is no mention of …", "the authors of Passage ID 3", "根据提供的资料，…".

These words state no claim a source must hold — a source never says "the given context" —
yet they count against a faithful sentence's support and its overlap with what it cites, most
often in answers of models prompted with numbered contexts. The claim rules read a sentence
without them (:func:`without_meta`).
"""

from __future__ import annotations

import re

SOURCE_NOUNS = r"contexts?|passages?|sources?|documents?|references?|citations?"
"""What models call the passages they were given ("contexts 1 and 2", "Passage ID 3"); the
number rule reads a number after one as a reference, not an amount."""
_SOURCES_EN = (
    rf"(?:{SOURCE_NOUNS}|search\s+results?|(?:provided\s+)?text|(?:provided\s+)?information)"
    r"(?:\s+(?:ID\s*)?\d+)?"
)
_META_EN = re.compile(
    r"\b(?:(?:based\s+on|according\s+to|from|in|as\s+(?:stated|mentioned|described)\s+in)"
    r"\s+(?:the\s+|these\s+|this\s+)?(?:(?:given|provided|above|available|cited|retrieved)\s+)?"
    rf"{_SOURCES_EN}"
    rf"|the\s+(?:(?:given|provided)\s+)?{_SOURCES_EN}\s+(?:only\s+)?"
    r"(?:talks?\s+about|mentions?|says?|states?|discuss(?:es)?)"
    r"|there\s+is\s+no\s+mention\s+of|(?:is|are|was|were)\s+not\s+mentioned"
    rf"|(?:{SOURCE_NOUNS})\s+(?:ID\s*)?\d+)\b",
    re.IGNORECASE,
)
_SOURCES_ZH = r"(?:资料|上下文|文档|材料|内容|信息|来源|参考资料)"
_META_ZH = re.compile(
    rf"根据(?:所)?(?:提供|给出|给定|以上|上述|检索到)?的?{_SOURCES_ZH}"
    rf"|{_SOURCES_ZH}中?(?:并)?(?:没有|未)?(?:提到|提及|显示)"
)


def without_meta(text: str) -> str:
    """``text`` with the phrases that speak of its sources blanked out."""
    return _META_ZH.sub(" ", _META_EN.sub(" ", text))
