"""Whether a question asks yes or no ("apisix 支持 dubbo3 吗？", "Can I carry leave over?").

The question grounds the names an answer repeats (:class:`rag.check.cited.CitedSources`): an
asker who writes "我在 Docker 里跑 apisix" may be told what to change "在 Docker 中". Not so for
a yes/no question: "是的，apisix 支持 dubbo3 的 triple 协议[4]" (what a 1.5B model answered over
sources that never name either) asserts exactly what was asked, so the names in it must come
from its sources.
"""

from __future__ import annotations

import re

_ZH = re.compile(
    r"(?:吗|么|嘛)\s*[？?]*\s*$"
    r"|是否|能否|可否|有没有|是不是|能不能|可不可以|会不会|要不要|支不支持|有无"
)
_EN = re.compile(
    r"^\W*(?:do|does|did|is|are|was|were|can|could|will|would|should|shall|may|must"
    r"|has|have|had|isn't|aren't|doesn't|don't|can't)\s",
    re.IGNORECASE,
)

_SENTENCE_END = re.compile(r"(?<=[。！？；\n])|(?<=[.!?;])\s+")


def asks_yes_or_no(question: str) -> bool:
    """Whether the question's last sentence asks yes or no (its first words, in English; its
    particle or an A-not-A form, in Chinese)."""
    pieces = [p for p in _SENTENCE_END.split(question.strip()) if p and p.strip()]
    asked = pieces[-1] if pieces else ""
    return bool(_ZH.search(asked) or _EN.match(asked))
