"""Questions whose answer has parts: a list, a count, a comparison.

"一共有几类假期？" and "what kinds of leave are there?" ask for every item of a kind, which an
organisation usually writes one page or section each; "出差和加班各需要谁审批？" and "what's the
difference between the Pro and the Team plan?" ask the same thing of two or more named things,
each answered in its own place. Retrieval then gathers a passage for each part
(:mod:`rag.search.gather`) and the answer names each with its own citation
(:mod:`rag.generate.composed`).

The readings are surface patterns in Chinese and English, kept narrow on purpose: a question
read as having parts is searched and answered differently, so "此鱼分布在哪些地区？" (one fact
about one fish) is not a list, and two things joined by 和/and are compared only when the
question says so (区别, 各, 分别, difference, compare, vs, "who … and who …") or they open it
as two of one kind (年假和病假…: the same last character).

- ``list``: 有哪些, 包括哪些, 哪几类; "what kinds of", "which expenses can I", "what … are there";
- ``count``: 几类, 几种, 多少种; "how many kinds of";
- ``comparison``: the things compared (``things``), each searched on its own
  (:meth:`Parts.searches`).

``topic`` is the question without that wording ("假期", "leave"): the words that say how to
answer are in no passage, and searched they only lower every passage's score.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rag.language import IDEOGRAPHS, has_ideograph
from rag.reading import EN_STOPWORDS

Shape = Literal["list", "count", "comparison"]

MAX_THINGS = 5
"""More compared things than this is a list, not a comparison."""
MAX_ZH_THING = 8
"""The longest Chinese thing (characters): a longer conjunct is a clause, not a name."""
MAX_EN_THING = 5
"""The longest English thing (words)."""

_ZH_COUNT = re.compile(r"(?:一共|总共|共)?有?(?:几|多少)(?:个|大)?(?:类|种|项|款|档|类型|种类)")
_ZH_LIST = re.compile(
    r"(?:一共|总共|都)?(?:有哪些|有哪几|包括哪些|包含哪些|分为哪些|分哪些|哪几类|哪几种|哪几项|"
    r"哪些种类|哪些类型|哪些类别|有什么种类|有什么类型|有些什么|都有什么)"
)
_ZH_COMPARE = re.compile(
    r"(?:之间)?(?:有)?(?:什么|啥|哪些)?(?:区别|不同|差别|差异|异同)|(?:对比|比较|相比)"
    r"|各自|分别|各(?=[需要有是为能可在由按怎几多])|哪个更|哪种更|哪个好"
)
_ZH_JOIN = re.compile(r"以及|还有|和|与|跟|及|、|或")
_ZH_LEAD = re.compile(r"^(?:请问|想问一下|想问|我想知道|问一下|咱们|我们|公司的?)")
_ZH_TRAIL = re.compile(r"(?:之间|的|有|期间)+$")

_EN_COUNT = re.compile(
    r"\bhow many (?:different )?(?:kinds|types|sorts|categories|classes|forms)\b", re.IGNORECASE
)
_EN_LIST = re.compile(
    r"\b(?:what|which) (?:different )?(?:kinds|types|sorts|categories|classes|forms) of\b"
    r"|\b(?:what|which) (?:\w+ ){0,2}(?:are|is) (?:there|available|offered)\b"
    r"|\b(?:what|which) [a-z]+[^s\W]s (?:are|can|do|should|must) (?:i|we|you|employees|staff)\b"
    r"|\blist (?:all|the|every)\b",
    re.IGNORECASE,
)
_EN_THINGS = (
    re.compile(r"\bdifferences? between (?P<things>.+?)(?:\?|$|[.,;]| for | in | when )", re.I),
    re.compile(r"\bcompare (?P<things>.+?)(?:\?|$|[.;])", re.I),
    re.compile(r"\bhow (?:do|does|did) (?P<things>.+?) differ\b", re.I),
    re.compile(r"\b(?:is|are) (?P<things>.+?) (?:the same|different)\b", re.I),
    re.compile(
        r"(?:^|\b(?:what|how|is|are)\b)(?P<things>[^?]+? (?:vs\.?|versus) [^?]+?)(?:\?|$)", re.I
    ),
)
_EN_JOIN = re.compile(r",? (?:and|with|to|vs\.?|versus|or) |, ", re.IGNORECASE)
_EN_ARTICLE = re.compile(r"^(?:the|a|an|our|my|your|their)\s+", re.IGNORECASE)
_EN_QUESTION = frozenset({"what's", "whats", "difference", "differences", "between"})
_EN_WH = re.compile(
    r"^(?P<wh>who|what|how|when|where|which)\b(?P<a>.+?),? and (?P=wh)\b(?P<b>.+?)\??$",
    re.IGNORECASE,
)
_EN_FORM = re.compile(
    r"\bwhat(?:'s| is| are)? the differences? between\b|\bdifferences? between\b|\bcompare\b"
    r"|\bdiffer\b|\bvs\.?|\bversus\b|\bhow many (?:different )?(?:kinds|types|sorts|categories|"
    r"classes|forms) of\b|\b(?:what|which) (?:different )?(?:kinds|types|sorts|categories|"
    r"classes|forms) of\b|\bare there\b|\blist (?:all|the|every)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Parts:
    """How a question's answer divides, and what to search for each part."""

    shape: Shape
    topic: str
    """The question without the wording of its shape: what is searched for the whole."""
    things: tuple[str, ...] = ()
    """The compared things, as the question names them (a comparison only)."""
    asks: tuple[str, ...] = ()
    """Per thing, the question asked of that thing alone ("出差需要谁审批")."""

    def searches(self) -> tuple[str, ...]:
        """One search per compared thing (none for a list or count)."""
        return self.asks


def parts_of(question: str) -> Parts | None:
    """The parts ``question`` asks for, or ``None`` for an ordinary question."""
    text = " ".join(question.split())
    if has_ideograph(text):
        return _zh_compared(text) or _zh_listed(text)
    return _en_compared(text) or _en_listed(text)


# --- Chinese --------------------------------------------------------------------------------


def _zh_listed(text: str) -> Parts | None:
    if _ZH_COUNT.search(text):
        return Parts("count", _zh_topic(_ZH_COUNT.sub("", text)))
    if _ZH_LIST.search(text):
        return Parts("list", _zh_topic(_ZH_LIST.sub("", text)))
    return None


def _zh_topic(text: str) -> str:
    return re.sub(r"[？?！!。，,\s]+$", "", text).strip() or text


def _zh_compared(text: str) -> Parts | None:
    marker = _ZH_COMPARE.search(text)
    if marker is None:
        return _zh_paired(text)
    clause_start = max(text.rfind(p, 0, marker.start()) for p in "，,。；;：:？?！! ") + 1
    span = _ZH_TRAIL.sub("", _ZH_LEAD.sub("", text[clause_start : marker.start()]))
    things = [t.strip() for t in _ZH_JOIN.split(span) if t.strip()]
    if len(things) < 2 or len(things) > MAX_THINGS:
        return None
    things[-1] = _zh_head_cut(things[0], things[-1])
    # "出差的交通和住宿": 出差的 qualifies every thing, and is asked with each
    owner, _, things[0] = things[0].rpartition("的")
    owner = f"{owner}的" if owner else ""
    if any(len(t) > MAX_ZH_THING or not re.search(f"[{IDEOGRAPHS}A-Za-z]", t) for t in things):
        return None
    before = text[:clause_start] + text[clause_start : marker.start()].replace(span, "{}")
    rest = text[marker.end() :]
    word = marker.group()
    # "各需要" keeps its verb; "有什么区别" asks nothing of its own beside the things
    tail = "" if re.search("区别|不同|差别|差异|异同|对比|比较|相比", word) else rest
    asks = tuple(_zh_topic(before.format(owner + thing) + tail) for thing in things)
    topic = _zh_topic(text[: marker.start()] + (rest if tail else ""))
    return Parts("comparison", topic, tuple(things), asks)


_ZH_PAIR = re.compile(
    rf"^(?P<a>[{IDEOGRAPHS}]{{1,3}}(?P<head>[{IDEOGRAPHS}]))(?:和|与|跟|及)"
    rf"(?P<b>[{IDEOGRAPHS}]{{1,3}}(?P=head))(?P<rest>.*)$"
)


def _zh_paired(text: str) -> Parts | None:
    """ "年假和病假期间工资怎么发？": two things of one kind (the same head, 假) opening the
    question are asked about side by side, without 分别 or 区别 saying so."""
    found = _ZH_PAIR.match(_ZH_LEAD.sub("", text))
    if found is None or not found.group("rest").strip("？?"):
        return None
    things = (found.group("a"), found.group("b"))
    asks = tuple(_zh_topic(thing + found.group("rest")) for thing in things)
    return Parts("comparison", _zh_topic(text), things, asks)


def _zh_head_cut(first: str, last: str) -> str:
    """The last conjunct cut after the head it shares with the first: "年假和病假期间工资" compares
    年假 with 病假, whose head 假 ends the first one too."""
    head = first[-1]
    at = last.find(head, 0, len(first) + 2)
    return last[: at + 1] if at > 0 else last


# --- English --------------------------------------------------------------------------------


def _en_listed(text: str) -> Parts | None:
    if _EN_COUNT.search(text):
        return Parts("count", _en_topic(text))
    if _EN_LIST.search(text):
        return Parts("list", _en_topic(text))
    return None


def _en_topic(text: str) -> str:
    topic = " ".join(_EN_FORM.sub(" ", text).split())
    return topic if re.search(r"[A-Za-z]{3}", topic) else text


def _en_compared(text: str) -> Parts | None:
    asked = _en_wh_clauses(text)
    if asked is not None:
        return asked
    for pattern in _EN_THINGS:
        found = pattern.search(text)
        if found is None:
            continue
        things = _en_things(found.group("things"))
        if things is None:
            continue
        rest = text[: found.start("things")] + text[found.end("things") :]
        # what else the question asks of them ("… differ in price?"): its content words
        words = re.findall(r"[\w'’-]+", _EN_FORM.sub(" ", rest).lower())
        content = " ".join(w for w in words if w not in EN_STOPWORDS and w not in _EN_QUESTION)
        asks = tuple(f"{thing} {content}".strip() for thing in things)
        return Parts("comparison", _en_topic(text), things, asks)
    return None


def _en_things(span: str) -> tuple[str, ...] | None:
    things = [_EN_ARTICLE.sub("", t.strip()) for t in _EN_JOIN.split(span) if t.strip()]
    if len(things) < 2 or len(things) > MAX_THINGS:
        return None
    if any(len(t.split()) > MAX_EN_THING for t in things):
        return None
    # "the Pro and the Team plan": the head noun of the last names each one-word thing too
    head = things[-1].split()[-1]
    if len(things[-1].split()) == 2:
        things = [f"{t} {head}" if len(t.split()) == 1 else t for t in things]
    return tuple(things)


def _en_wh_clauses(text: str) -> Parts | None:
    """ "Who approves business travel and who approves overtime?": one question asked of
    two things, the words both clauses share left out of the things."""
    found = _EN_WH.match(text)
    if found is None:
        return None
    wh = found.group("wh")
    a, b = found.group("a").split(), found.group("b").split()
    shared = 0
    while shared < min(len(a), len(b)) - 1 and a[shared].lower() == b[shared].lower():
        shared += 1
    things = (" ".join(a[shared:]), " ".join(b[shared:]))
    if not shared or any(len(t.split()) > MAX_EN_THING for t in things):
        return None
    asks = (f"{wh} {' '.join(a)}", f"{wh} {' '.join(b)}")
    return Parts("comparison", text, tuple(_EN_ARTICLE.sub("", t) for t in things), asks)
