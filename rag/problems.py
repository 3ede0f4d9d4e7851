"""What the citation checker found wrong with a draft, as values a reviewer can act on.

A :class:`Problem` names its kind, the sentence it is about, the sources that sentence cites
(``refs``: ``[n]`` numbers) and two texts in the asker's language: ``message`` stands alone
(logs, ``rag check-eval``, the console) and ``note`` is said under the quoted sentence on a
review card, so the card quotes each sentence once (:func:`by_sentence`).

Kept out of :mod:`rag.check` because results carry problems (``Unverified.problems``) and the
checker reads results: a third module keeps that from becoming a cycle.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import field_validator

from rag.storage.records import Record

KINDS = frozenset(
    {
        "unknown_reference",
        "no_citation",
        "ungrounded_number",
        "misattributed_number",
        "wrong_arithmetic",
        "unrelated_source",
        "unsupported_claim",
        "ungrounded_name",
        "modality_mismatch",
        "judged_unsupported",
        "judge_unavailable",
        "reply_cut",
        "voted_down",
        "conflict",
    }
)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an answer, named for a reviewer in the asker's language."""

    kind: str
    message: str
    sentence: str = ""
    """The answer sentence it is about; empty for the answer as a whole."""
    refs: tuple[int, ...] = ()
    """The source numbers (``[n]``) the sentence cites that the problem is about."""
    note: str = ""
    """What is wrong, said under the quoted sentence (without quoting it again); empty when
    the message says it the same way."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            msg = f"problem kind {self.kind!r} is not one of {sorted(KINDS)}"
            raise ValueError(msg)

    @property
    def said(self) -> str:
        """The text for under the quoted sentence."""
        return self.note or self.message


@dataclass(frozen=True, slots=True)
class SentenceProblems:
    sentence: str
    """Empty: problems of the answer as a whole (nothing cited at all, no model verdict)."""
    problems: tuple[Problem, ...]


def by_sentence(problems: Iterable[Problem]) -> list[SentenceProblems]:
    """``problems`` grouped by their sentence, in order of first mention; the answer-wide
    ones first (they say the most: nothing is cited, or no one could judge it)."""
    groups: dict[str, list[Problem]] = {}
    for problem in problems:
        groups.setdefault(problem.sentence.strip(), []).append(problem)
    ordered = sorted(groups.items(), key=lambda item: item[0] != "")  # stable: keeps order
    return [SentenceProblems(sentence, tuple(found)) for sentence, found in ordered]


class ProblemRecord(Record):
    """A problem as stored (cached results, the review desk's open reviews)."""

    kind: str
    message: str
    sentence: str = ""
    refs: tuple[int, ...] = ()
    note: str = ""

    @field_validator("kind")
    @classmethod
    def _known(cls, kind: str) -> str:
        if kind not in KINDS:  # a newer writer's kind: unreadable here, not a crash later
            msg = f"unknown problem kind {kind!r}"
            raise ValueError(msg)
        return kind

    @classmethod
    def of(cls, problem: Problem) -> ProblemRecord:
        return cls(
            kind=problem.kind,
            message=problem.message,
            sentence=problem.sentence,
            refs=problem.refs,
            note=problem.note,
        )

    def problem(self) -> Problem:
        return Problem(self.kind, self.message, self.sentence, self.refs, self.note)
