"""Yes where the source says no: a sentence that repeats its source's clause with the negation
dropped or added.

"Carried-over days are paid out" cited for "unused days expire and are not paid out", or
"请假未补的课时不计为已消耗课时" for "……均计为已消耗课时", shares nearly every word with the
source; coverage passes it and no duty or permission (:mod:`rag.check.modality`) is involved.
Here each clause of the sentence is set against the source clause restating it
(:func:`rag.check.clauses.pairs`); when they deny what they share a different number of times,
the sentence says the opposite of what it cites.

Negation is a word that denies (not, no, never, 不, 没, 未, 无, 非, 勿); what only looks like one
is taken out first: limits ("no later than", "no more than", "不少于"), words that merely hold
the character (不同, 不断, 非常, 未来, 无论, 除非), and clauses stating a duty or a permission,
which the modality rule reads.
"""

from __future__ import annotations

import re

from rag.check.clauses import pairs
from rag.check.modality import MODALS
from rag.reading import claim_terms, words

SCOPE_CHARS = 16
"""What a denial bears on: the characters right after it ("not paid out", "不计为已消耗")."""

_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|neither|nor|without)\b|n't\b|[不没未无非勿]", re.IGNORECASE
)
_NOT_A_NEGATION = re.compile(
    r"\b(?:no|not)\s+(?:later|earlier|sooner|more|less|fewer|longer|shorter)\s+than\b"
    r"|\bnot\s+(?:only|exceeding|just)\b|\bwhether\s+or\s+not\b|\bif\s+not\b|\bno\s+matter\b"
    r"|不少于|不多于|不超过|不低于|不高于|不小于|不大于|不到|不足"
    r"|不同|不断|不过|不仅|不但|不久|不管|不论|不只|不错|不如|不得不|不少"
    r"|非常|并且|未来|无论|除非|毫无疑问",
    re.IGNORECASE,
)


_NEVER = re.compile(r"\bnever\b", re.IGNORECASE)
_PRONOUNS = frozenset(
    words("its itself himself herself themselves his her hers him them theirs ours yours")
)
"""Not what a clause is about: two clauses sharing "product" and "itself" restate nothing."""


def _negations(clause: str, shared: set[str]) -> int:
    """How many denials a clause holds over what both clauses say: a denial counts when the
    words right after it hold a shared term. "请假未补的课时不计为……" has two (未补 names which
    lessons, 不计 is the claim) to its source's "请假未补的课时均计为……" one; the 无法 of
    "因工作调动无法继续上课的" denies something "因工作调动" doesn't say."""
    text = _NOT_A_NEGATION.sub(" ", clause)
    return sum(
        bool(claim_terms(text[match.end() : match.end() + SCOPE_CHARS]) & shared)
        for match in _NEGATION.finditer(text)
    )


def _modal(clause: str) -> bool:
    """A duty or a permission, which the modality rule reads. "Never" alone is left here: the
    modality rule reads "Never share your password" against "You may share …", but "Alcohol is
    never reimbursed" against "Alcohol is reimbursed" has no modal on the other side."""
    clause = _NEVER.sub(" ", clause)
    return any(modal.yes.search(clause) or modal.no.search(clause) for modal in MODALS)


def _terms(clause: str) -> set[str]:
    return claim_terms(_NEGATION.sub(" ", _NOT_A_NEGATION.sub(" ", clause))) - _PRONOUNS


def opposite(sentence: str, source: str) -> bool:
    """Whether a clause of ``sentence`` restates a clause of ``source`` with the other polarity."""
    if not (_NEGATION.search(sentence) or _NEGATION.search(source)):
        return False  # nothing denied on either side: no clause needs reading
    return any(
        _negations(clause, shared) != _negations(held, shared)
        for clause, held, shared in pairs(sentence, source, _terms, skip=_modal)
    )
