"""Longer where the source says shorter: a sentence that restates its source with a limit or an
order turned round.

"First class is allowed for journeys shorter than five hours" cited for "… longer than five
hours", or "转级需在第 4 课时结束后提出" for "……结束前提出", keeps every number and nearly every
word of its source; the number rule and word coverage pass it. Each clause is set against the
source clauses that could restate it (:func:`rag.check.clauses.candidates`); when the sentence
says one side of a pair below, one of them only the other and none the sentence's side, the
sentence turned it round.
"""

from __future__ import annotations

import re

from rag.check.clauses import candidates
from rag.reading import claim_terms

_SIDES = (
    (r"\blonger\b", r"\bshorter\b"),
    (
        r"\b(?:more|greater)\s+than\b|\bover\b|\babove\b|\bexceed",
        r"\b(?:less|fewer)\s+than\b|\bunder\b|\bbelow\b",
    ),
    (r"\bat\s+least\b|\bminimum\b", r"\bat\s+most\b|\bmaximum\b|\bup\s+to\b"),
    (r"\bbefore\b|\bin\s+advance\b|\bearlier\b|\bprior\s+to\b", r"\bafter\b|\blater\b"),
    (r"\bhigher\b|\bincrease", r"\blower\b|\bdecrease|\breduce"),
    (r"以上|超过|多于|高于|大于", r"以下|不足|不到|少于|低于|小于"),
    (r"最多|最高|最长|上限", r"最少|最低|最短|下限"),
    (
        r"之前|以前|前提出|前申请|前完成|前提交|提前|早于|课前",
        r"之后|以后|后提出|后申请|后完成|后提交|延后|晚于|课后",
    ),
    (r"增加|提高|增至", r"减少|降低|降至"),
)
PAIRS = tuple(
    (re.compile(one, re.IGNORECASE), re.compile(other, re.IGNORECASE)) for one, other in _SIDES
)


_MAY_OR_ONLY = re.compile(r"只能|只可|仅能|仅可|可以|可")
"""Whether the clause allows or restricts is not what it is about: "只能在开课前申请退费"
restates "可在开课后任何时间申请退费" with its order turned round."""


def _terms(clause: str) -> set[str]:
    for one, other in PAIRS:
        clause = other.sub(" ", one.sub(" ", clause))
    return claim_terms(_MAY_OR_ONLY.sub(" ", clause))


def turned(sentence: str, source: str) -> bool:
    """Whether a clause of ``sentence`` restates ``source`` with a direction reversed: it says
    one side, some source clause restating it only the other, and none says its side."""
    if not any(one.search(sentence) or other.search(sentence) for one, other in PAIRS):
        return False  # most sentences state no direction: the source is not read
    return any(
        _one_side(says, against, clause)
        and any(_one_side(against, says, held) for held in close)
        and not any(says.search(held) for held in close)
        for clause, close in candidates(sentence, source, _terms)
        for one, other in PAIRS
        for says, against in ((one, other), (other, one))
    )


def _one_side(says: re.Pattern[str], against: re.Pattern[str], clause: str) -> bool:
    return says.search(clause) is not None and against.search(clause) is None
