"""Clauses of a sentence and of its source, and which source clause restates a sentence's.

The rules that compare statements rather than words (:mod:`rag.check.modality`,
:mod:`rag.check.polarity`, :mod:`rag.check.direction`) read a sentence clause by clause and set
each against the source clause that shares the most of its content terms. They are "the same
statement" when they share at least :data:`MIN_SHARED` terms and :data:`MIN_SHARE` of the
shorter one's, or all of a source clause of :data:`SHORT_CLAUSE` terms: then a denial, a duty
or a direction that differs between them is the sentence saying the opposite of its source,
not saying something else. In Chinese two neighbouring clauses are also read together
(:func:`spans`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import pairwise

from rag.language import has_ideograph

CLAUSE_END = re.compile(r"[,;:，；：、。！？!?\n]|\.(?=\s|$)")
MIN_SHARED = 3
SHORT_CLAUSE = 2
"""A source clause of this many terms ("Alcohol is never reimbursed") is restated by a sentence
clause holding both: its restatement adds words ("… with the meal allowance") rather than
sharing three. (Measured on attrib-tune: no answer's decision changed.)"""
MIN_SHARE = 0.7
"""How closely a source clause must restate a sentence clause (measured on attrib-tune: 0.6
added false alarms on ExpertQA, 0.8 missed restatements that drop a qualifier)."""


def clauses(text: str) -> list[str]:
    return [clause for clause in CLAUSE_END.split(text) if clause.strip()]


def spans(text: str) -> list[list[str]]:
    """The clauses of ``text`` and, in Chinese, each two neighbouring ones together: Chinese
    strings a rule's conditions as short comma clauses ("最长六个月，期间不扣课时"), too thin
    alone to find their restatement. A pair is only set against a pair of the source whose
    clauses each share a term with its own (:func:`_aligned`), so that half of a pair can't
    restate a clause while its other half holds a denial the source doesn't bear on. (English
    clauses carry more words; joining them too added three ExpertQA false alarms on
    attrib-tune.)"""
    found = clauses(text)
    if not has_ideograph(text):
        return [found]
    return [found, [f"{one}，{two}" for one, two in pairwise(found)]]


def _close(terms: set[str], other: set[str]) -> bool:
    """Whether source clause terms ``other`` restate sentence clause terms ``terms``."""
    shared = len(terms & other)
    if shared == len(other) == SHORT_CLAUSE:
        return True
    return shared >= MIN_SHARED and shared >= MIN_SHARE * min(len(terms), len(other))


def _sides(
    sentence: str, source: str, terms: Callable[[str], set[str]], skip: Callable[[str], bool]
) -> Iterator[tuple[str, set[str], list[tuple[str, set[str]]]]]:
    """Each clause of ``sentence`` worth matching, its terms, and the source clauses with
    theirs (clauses for which ``skip`` holds are left out on both sides)."""
    terms = _once(terms)  # a pair's clauses were read on their own already
    for pair, (mine, theirs) in enumerate(zip(spans(sentence), spans(source), strict=False)):
        held = [(c, terms(c), _halves(c, terms, pair)) for c in theirs if not skip(c)]
        for clause in mine:
            own = terms(clause)
            if skip(clause) or len(own) < MIN_SHARED:
                continue
            halves = _halves(clause, terms, pair)
            yield clause, own, [(c, its) for c, its, parts in held if _aligned(halves, parts)]


def _once(terms: Callable[[str], set[str]]) -> Callable[[str], set[str]]:
    known: dict[str, set[str]] = {}

    def read(text: str) -> set[str]:
        if text not in known:
            known[text] = terms(text)
        return known[text]

    return read


def _halves(span: str, terms: Callable[[str], set[str]], pair: int) -> list[set[str]]:
    return [terms(half) for half in span.split("，")] if pair else []


def _aligned(mine: list[set[str]], theirs: list[set[str]]) -> bool:
    """Whether each clause of a pair shares a term with its counterpart in the source's pair:
    "最长六个月，期间按月扣除课时" with "最长六个月，期间不扣课时", not "教材费是不退的，
    教材费每个级别 280 元" with a table row and "教材费每个级别 280 元"."""
    return all(one & other for one, other in zip(mine, theirs, strict=True))


def candidates(
    sentence: str,
    source: str,
    terms: Callable[[str], set[str]],
    *,
    skip: Callable[[str], bool] = lambda clause: False,
) -> list[tuple[str, list[str]]]:
    """Each clause of ``sentence`` with every source clause close enough to restate it: two
    source clauses may restate one sentence clause equally well ("最高点报每克225.75元" and
    "最低点报每克223.7元" share all but their numbers)."""
    found = []
    for clause, own, held in _sides(sentence, source, terms, skip):
        close = [other for other, its in held if _close(own, its)]
        if close:
            found.append((clause, close))
    return found


def pairs(
    sentence: str, source: str, terms: Callable[[str], set[str]], *, skip: Callable[[str], bool]
) -> list[tuple[str, str, set[str]]]:
    """Each clause of ``sentence`` with the source clause restating it (of those close enough,
    the one sharing most of its terms) and the terms they share."""
    found = []
    for clause, own, held in _sides(sentence, source, terms, skip):
        close = [pair for pair in held if _close(own, pair[1])]
        best = max(close, key=lambda pair: len(own & pair[1]), default=None)
        if best is not None:
            found.append((clause, best[0], own & best[1]))
    return found
