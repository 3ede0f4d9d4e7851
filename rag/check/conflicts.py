"""Two current documents that give different values for what is asked: shown, never settled.

Organisations publish a new rule without withdrawing the old page, or two departments write
the same rule twice and one of them changes. Whichever ranked first would be quoted, and the
asker would never know the other exists. :func:`find_conflict` reads the passages that passed
the gate, per document, for the sentence that best answers the question, and compares what
they say of it:

- an amount or a count in the same unit ("每晚 500 元" / "每晚 600 元", "10 working days" /
  "15 working days") whose values do not meet;
- an approver, when the question asks who approves ("由部门经理审批" / "由财务总监审批",
  "approved by your line manager" / "approved by the Finance Director").

Both sentences must hold most of what the question names and be about the same thing (they
share most of their words, numbers aside), so two rules about different things (annual leave
and sick leave) that merely both count days are not a conflict; a worked example (a section
headed 示例 / Example, a sentence saying 例如 / for example) states no rule and takes no part.
The pipeline then answers with both, each with its source and date, and sends the answer to
review (problem kind ``conflict``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.check.numbers import quantities
from rag.check.units import count_of
from rag.generate.quotable import split_sentences
from rag.language import detect_language
from rag.reading import match_terms
from rag.results import Hit

MIN_COVERAGE = 0.5
"""Share of the question's terms a sentence must hold to be taken as answering it."""
MIN_LIKENESS = 0.5
"""Share of the shorter sentence's words (numbers aside) the other must hold too for the two
to be about one thing."""

_ASKS_APPROVER = re.compile(r"审批|批准|签批|谁批|核准|approv|sign[s -]?off", re.IGNORECASE)
_ZH_APPROVER = (
    re.compile(r"由\s*([\u4e00-\u9fffA-Za-z]{2,12}?)\s*(?:审批|批准|签批|核准|审核)"),
    re.compile(
        r"(?:报|经|需|须|需要|必须|应当|应)\s*([\u4e00-\u9fff]{2,10}?)\s*(?:审批|批准|签批|同意)"
    ),
)
_EN_APPROVER = (
    re.compile(
        r"approv(?:ed|al)\s+(?:by|from)\s+(?:the\s+|your\s+|a\s+|an\s+)?"
        r"([A-Za-z][A-Za-z' -]{1,40}?)(?=\s*[,.;:)]|\s+(?:before|and|within|in|for|prior|at)\b|$)",
        re.IGNORECASE,
    ),
    re.compile(
        r"(?:the\s+|your\s+)?([A-Za-z][A-Za-z' -]{1,40}?)\s+(?:must|should|will|has to)\s+approve",
        re.IGNORECASE,
    ),
)
_DIGITS = re.compile(r"\d")
_EXAMPLE = re.compile(
    r"示例|举例|例如|比如|譬如|样例|\bexamples?\b|\bfor instance\b|\be\.g\.", re.IGNORECASE
)
"""A worked example or a value given "for example" is not the rule: a refund example's
"实付课程费 4800 元" does not contradict a price list that says 5200."""


@dataclass(frozen=True, slots=True)
class Side:
    """What one document says: its source number, the sentence and the value in it."""

    n: int
    sentence: str
    value: str


@dataclass(frozen=True, slots=True)
class Conflict:
    first: Side
    second: Side

    @property
    def refs(self) -> tuple[int, int]:
        return (self.first.n, self.second.n)


@dataclass(frozen=True, slots=True)
class _Said:
    """One value a sentence gives: an amount in a unit, or an approver (unit ``approver``)."""

    n: int
    document: str
    sentence: str
    coverage: float
    covered: frozenset[str]
    """Which of the question's terms the sentence holds."""
    unit: str
    values: frozenset[float] | str
    shown: str
    clause: frozenset[str]
    """The terms of the clause the value is in (what it is the value of)."""


def find_conflict(question: str, hits: Sequence[Hit], *, min_score: float) -> Conflict | None:
    """The first pair of documents among ``hits`` (those scoring at least ``min_score``) whose
    best sentences give different values for what ``question`` asks; ``None`` when they agree
    or only one document answers."""
    asked = match_terms(question)
    if not asked:
        return None
    wants_approver = bool(_ASKS_APPROVER.search(question))
    best: dict[str, list[_Said]] = {}
    for n, hit in enumerate(hits, start=1):
        if hit.score >= min_score:
            for said in _values(n, hit, asked, wants_approver):
                _keep_best(best, said)
    documents = list(best.values())
    for i, mine in enumerate(documents):
        for theirs in documents[i + 1 :]:
            pair = next(
                ((one, other) for one in mine for other in theirs if _differ(one, other)), None
            )
            if pair is not None:
                one, other = pair
                return Conflict(
                    Side(one.n, one.sentence, one.shown), Side(other.n, other.sentence, other.shown)
                )
    return None


def _keep_best(best: dict[str, list[_Said]], said: _Said) -> None:
    """Per document, the values of its sentence that holds most of the question."""
    kept = best.get(said.document)
    if kept is None or said.coverage > kept[0].coverage:
        best[said.document] = [said]
    elif said.coverage == kept[0].coverage and said.sentence == kept[0].sentence:
        kept.append(said)


def _values(n: int, hit: Hit, asked: set[str], wants_approver: bool) -> list[_Said]:
    found: list[_Said] = []
    if _EXAMPLE.search(hit.chunk.heading_path):
        return found
    for sentence in split_sentences(hit.chunk.readable_text):
        if _EXAMPLE.search(sentence):
            continue
        terms = frozenset(match_terms(sentence))
        coverage = len(asked & terms) / len(asked)
        if coverage < MIN_COVERAGE:
            continue
        covered = frozenset(asked & terms)
        if wants_approver:
            approver = _approver(sentence)
            if approver is not None:
                name, at = approver
                found.append(
                    _Said(
                        n, hit.chunk.document, sentence, coverage, covered, "approver",
                        _folded(name), name, _clause(sentence, at),
                    )
                )  # fmt: skip
            continue
        for unit, values, shown, at in _counts(sentence):
            found.append(
                _Said(
                    n, hit.chunk.document, sentence, coverage, covered, unit, values, shown,
                    _clause(sentence, at),
                )
            )  # fmt: skip
    return found


def _counts(sentence: str) -> list[tuple[str, frozenset[float], str, int]]:
    language = detect_language(sentence)
    counts: list[tuple[str, frozenset[float], str, int]] = []
    for quantity in quantities(sentence):
        if quantity.ordinal:
            continue
        counted = count_of(quantity, sentence, language)
        if counted is not None:
            counts.append((counted.unit, counted.values, counted.shown, quantity.start))
    return counts


def _approver(sentence: str) -> tuple[str, int] | None:
    patterns = _ZH_APPROVER if detect_language(sentence) == "zh" else _EN_APPROVER
    for pattern in patterns:
        found = pattern.search(sentence)
        if found is not None:
            return found.group(1).strip(), found.start(1)
    return None


_CLAUSE_END = re.compile(r"[，,；;：:。.!?！？]")


def _clause(sentence: str, at: int) -> frozenset[str]:
    """The terms of the clause around position ``at`` (between commas, semicolons, stops)."""
    start = max((m.end() for m in _CLAUSE_END.finditer(sentence, 0, at)), default=0)
    end = _CLAUSE_END.search(sentence, at)
    clause = sentence[start : end.start() if end else len(sentence)]
    return frozenset(term for term in match_terms(clause) if not _DIGITS.search(term))


def _differ(one: _Said, other: _Said) -> bool:
    """Two values of one thing that do not meet: the same unit, the same question terms held
    (20 days of *annual* leave and 10 days of sick leave answer "how many days of annual
    leave" differently), and clauses that share most of the shorter one's words."""
    if one.unit != other.unit or one.covered != other.covered:
        return False
    shorter = min(len(one.clause), len(other.clause))
    if shorter == 0 or len(one.clause & other.clause) / shorter < MIN_LIKENESS:
        return False
    if isinstance(one.values, str) or isinstance(other.values, str):
        return one.values != other.values
    return not one.values & other.values


def _folded(name: str) -> str:
    return re.sub(r"\s+", " ", name).strip().lower().removeprefix("the ")
