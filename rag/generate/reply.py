"""A chat model's reply made into a draft the checker can read: what real models write instead
of the format the prompt asks for, brought back to it without changing a claim.

Seen on local open models (bench/model_path.py), each undone here:

- citation markers in other shapes: ``[^1]`` (with ``[^1]: …`` footnote lines), ``[source 1]``,
  ``[Source 1, 2]``, ``[来源1]``, ``(source 1)``, and a bare ``(1)`` / ``（1）`` right after a
  claim — read as ``[1]`` (a ``(1)`` that opens a line or follows a colon numbers a list item
  and stays, as does one naming a number with no such source);
- a preamble: an "Answer:" / "回答：" line, or "Based on the provided sources, …" /
  "根据提供的资料，…" before the first claim — dropped (it is no claim, and the asker sees it);
  one carrying a citation ("根据资料[1]，…") stays, so no claim loses its marker;
- the whole reply as JSON (``{"answer": "…"}``, in a code fence or not), or in a code fence —
  unwrapped;
- a refusal in the model's own words ("The provided sources do not mention …", "资料中没有提到
  …") — replaced by the refusal sentence, which the pipeline then turns into a refusal.

:func:`tidy` applies them all; :func:`has_preamble` and :func:`looks_like_json` only tell (the
benchmark counts how often a model needs them).
"""

from __future__ import annotations

import json
import re

from rag.language import Language
from rag.markers import MARKER, without_markers
from rag.messages import REFUSAL

_NUMS = r"[0-9０-９]+(?:\s*[,，、;；]\s*[0-9０-９]+)*"
_NAMED = (
    r"(?:sources?|documents?|docs?|passages?|refs?|references?|citations?|contexts?|"
    r"来源|资料|参考资料|文档|段落|出处)"
)
_NAMED_BRACKET = re.compile(
    rf"[\[［【]\s*{_NAMED}\s*(?:ID\s*)?[:：#]?\s*({_NUMS})\s*[\]］】]", re.IGNORECASE
)
_NAMED_PAREN = re.compile(
    rf"[ \t]*[(（]\s*{_NAMED}\s*(?:ID\s*)?[:：#]?\s*({_NUMS})\s*[)）]", re.IGNORECASE
)
_FOOTNOTE = re.compile(r"\[\^\s*([0-9]+)\s*\]")
_FOOTNOTE_LINE = re.compile(r"^[ \t]*\[\^\s*[0-9]+\s*\]:.*$\n?", re.MULTILINE)
_BARE_PAREN = re.compile(rf"(?P<before>[^\s])(?P<space>[ \t]?)[(（](?P<nums>{_NUMS})[)）]")
_LIST_OPENERS = frozenset(":：;；")

_ANSWER_LABEL = re.compile(
    r"\A\s*(?:\*\*)?(?:answer|final answer|response|回答|答案|答)(?:\*\*)?\s*[:：]"
    r"(?:\*\*)?[ \t]*\n?",
    re.IGNORECASE,
)
_HERE_IS = re.compile(
    r"\A\s*(?:sure[!,.]?\s*)?here(?:'s| is) (?:the |an |my )?answer[^\n:：]*[:：]\s*\n",
    re.IGNORECASE,
)
_SOURCES_EN = (
    r"(?:given |provided |above |available |retrieved )*"
    r"(?:sources?|documents?|context|passages?|information|text)"
)
_LEAD_EN = re.compile(
    rf"\A\s*(?:based on|according to|from|per)\s+(?:the\s+|these\s+)?{_SOURCES_EN}\s*[,，:]\s*",
    re.IGNORECASE,
)
_LEAD_ZH = re.compile(
    r"\A\s*(?:根据|依据|按照)(?:所|您)?(?:提供|给出|给定|以上|上述|检索到)?的?"
    r"(?:资料|上下文|文档|材料|内容|信息|来源|参考资料)\s*[,，:：]\s*"
)

_FENCE = re.compile(r"\A\s*```[a-zA-Z]*\s*\n(?P<body>.*?)\n\s*```\s*\Z", re.DOTALL)
_JSON_KEYS = ("answer", "response", "text", "content", "回答", "答案", "final_answer")

_REFUSING_EN = re.compile(
    r"(?:(?:sources?|documents?|context|passages?|information|text)\s+(?:provided\s+|given\s+)?"
    r"(?:do|does|did)\s*(?:n['’]t|not)\s+(?:contain|mention|include|provide|say|cover|specify|"
    r"state|address|have)"
    r"|\bI\s+(?:cannot|can['’]t|could\s+not|couldn['’]t|am\s+unable\s+to|was\s+unable\s+to)\s+"
    r"(?:find|answer|determine|provide|locate)"
    r"|\bthere\s+is\s+no\s+(?:information|mention|data|details?)"
    r"|\bno\s+(?:relevant\s+)?information\s+(?:about|on|regarding|is)"
    r"|\bnot\s+(?:mentioned|covered|specified|stated|provided)\s+in\s+the"
    r"|\bI\s+(?:do\s+not|don['’]t)\s+(?:know|have))",
    re.IGNORECASE,
)
_REFUSING_ZH = re.compile(
    r"(?:资料|文档|材料|上下文|来源|信息|内容)(?:中|里|里面)?(?:并)?(?:没有|未|没)(?:有)?"
    r"(?:提到|提及|包含|说明|涉及|写|给出|相关|关于)"
    r"|(?:无法|不能|没法)(?:根据|从|在)?.{0,12}(?:回答|确定|找到|得知|判断)"
    r"|没有(?:找到)?(?:相关|有关)?(?:的)?(?:信息|内容|资料|说明)"
    r"|未(?:提供|提及|说明)"
)
_COURTESY = re.compile(
    r"^(?:sorry|I['’]m sorry|apologies|please (?:ask|contact|consult)"
    r"|抱歉|对不起|很抱歉|请(?:咨询|联系|转)|转人工)",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=[.])\s+|\n+")
MAX_REFUSAL_CHARS = 300
"""A reply longer than this holds more than a refusal: the checker reads it instead."""


def looks_like_json(reply: str) -> bool:
    """The reply is a JSON object (or one in a code fence), not prose."""
    body = _unfenced(reply.strip())
    return body.startswith("{") and body.rstrip().endswith("}")


def has_preamble(reply: str) -> bool:
    """The reply opens with an answer label or a clause about its sources before any claim."""
    text = _unfenced(reply.strip())
    return any(p.match(text) for p in (_ANSWER_LABEL, _HERE_IS, _LEAD_EN, _LEAD_ZH))


def _unfenced(text: str) -> str:
    fenced = _FENCE.match(text)
    return fenced["body"].strip() if fenced else text


def _from_json(text: str) -> str:
    if not text.startswith("{"):
        return text
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if not isinstance(data, dict):
        return text
    for key in _JSON_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    strings = [v for v in data.values() if isinstance(v, str) and v.strip()]
    return strings[0].strip() if len(strings) == 1 else text


def _without_preamble(text: str) -> str:
    for label in (_ANSWER_LABEL, _HERE_IS):
        text = label.sub("", text, count=1).lstrip()
    for lead in (_LEAD_EN, _LEAD_ZH):
        stripped = lead.sub("", text, count=1)
        if stripped != text and stripped.strip():
            text = stripped[:1].upper() + stripped[1:] if lead is _LEAD_EN else stripped
    return text


def _numbers(body: str) -> list[int]:
    return [
        int(n)
        for n in re.findall(
            r"[0-9]+", body.translate(str.maketrans("０１２３４５６７８９", "0123456789"))
        )
    ]


def _bracketed(body: str) -> str:
    return "[" + ", ".join(str(n) for n in _numbers(body)) + "]"


def normalise_markers(text: str, sources: int) -> str:
    """Every citation the model wrote in another shape, written ``[n]`` (see the module doc)."""
    text = _FOOTNOTE_LINE.sub("", text)
    text = _FOOTNOTE.sub(lambda m: f"[{m[1]}]", text)
    text = _NAMED_BRACKET.sub(lambda m: _bracketed(m[1]), text)
    text = _NAMED_PAREN.sub(lambda m: _bracketed(m[1]), text)

    def bare(match: re.Match[str]) -> str:
        before, space = match["before"], match["space"]
        numbers = _numbers(match["nums"])
        is_claim_end = before not in _LIST_OPENERS and not (before.isdigit() and not space)
        if is_claim_end and numbers and all(1 <= n <= sources for n in numbers):
            return before + _bracketed(match["nums"])
        return match[0]

    return _BARE_PAREN.sub(bare, text)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def is_own_refusal(text: str) -> bool:
    """Every sentence of a short reply says the sources don't hold the answer (or apologises)."""
    plain = without_markers(text).strip()
    if not plain or len(plain) > MAX_REFUSAL_CHARS:
        return False
    found = _sentences(plain)
    refusing = [bool(_REFUSING_EN.search(s) or _REFUSING_ZH.search(s)) for s in found]
    courteous = [bool(_COURTESY.match(s)) for s in found]
    return any(refusing) and all(r or c for r, c in zip(refusing, courteous, strict=True))


def tidy(reply: str, *, sources: int, language: Language) -> str:
    """``reply`` in the format the prompt asked for; the refusal sentence (in ``language``) when
    the model refused in its own words. Claims are never reworded."""
    text = _from_json(_unfenced(reply.strip()))
    text = _without_preamble(text)
    text = normalise_markers(text, sources)
    if is_own_refusal(text) and not _cites_a_claim(text):
        return REFUSAL[language]
    return text.strip()


def _cites_a_claim(text: str) -> bool:
    """A refusal-sounding reply that still cites sentences of its own ("The documents don't say
    X, but Y [1].") is an answer: only the checker may judge it."""
    return any(
        MARKER.search(s) and not (_REFUSING_EN.search(s) or _REFUSING_ZH.search(s))
        for s in _sentences(text)
    )
