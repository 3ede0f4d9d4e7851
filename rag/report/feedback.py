"""The report's 👎 section: answers people voted down, with the passages they cited.

Votes come from the vote store (:mod:`rag.feedback`: one current vote per person per answer,
the question's text only under RECORD_QUESTIONS); the report reads what :class:`Vote` names
and nothing else. ``None`` instead of votes means the store could not be read (the weekly
digest while Redis is away): the section says so rather than show 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

TOP_ANSWERS = 20
NOT_READABLE = "👎 feedback could not be read (the vote store is unavailable)"


class Vote(Protocol):
    @property
    def at(self) -> float: ...
    @property
    def answer(self) -> str: ...
    @property
    def verdict(self) -> str: ...
    @property
    def note(self) -> str: ...
    @property
    def hash(self) -> str: ...
    @property
    def text(self) -> str | None: ...
    @property
    def sources(self) -> tuple[str, ...]: ...
    @property
    def index_version(self) -> str: ...


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def _answer(votes: Sequence[Vote]) -> dict[str, Any]:
    """One voted-down answer: its votes, the question, the passages it cited, the notes."""
    last = max(votes, key=lambda vote: vote.at)
    return {
        "answer": last.answer,
        "down": sum(1 for vote in votes if vote.verdict == "down"),
        "up": sum(1 for vote in votes if vote.verdict == "up"),
        "question": next((vote.text for vote in votes if vote.text), None),
        "question_hash": last.hash,
        "sources": list(last.sources),
        "index_version": last.index_version,
        "notes": [vote.note for vote in votes if vote.verdict == "down" and vote.note],
        "last_vote": _iso(last.at),
    }


def feedback_section(votes: Sequence[Vote] | None, *, since: float, until: float) -> dict[str, Any]:
    if votes is None:
        return {"down": None, "up": None, "answers_down": None, "answers": [], "note": NOT_READABLE}
    votes = [vote for vote in votes if since <= vote.at <= until]
    by_answer: dict[str, list[Vote]] = {}
    for vote in votes:
        by_answer.setdefault(vote.answer, []).append(vote)
    down = [
        _answer(group) for group in by_answer.values() if any(v.verdict == "down" for v in group)
    ]
    down.sort(key=lambda answer: str(answer["last_vote"]), reverse=True)
    down.sort(key=lambda answer: -int(answer["down"]))  # most voted down first, then latest
    return {
        "down": sum(1 for vote in votes if vote.verdict == "down"),
        "up": sum(1 for vote in votes if vote.verdict == "up"),
        "answers_down": len(down),
        "answers": down[:TOP_ANSWERS],
        "note": "",
    }
