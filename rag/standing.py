"""What is answered when documents' standing decides: a rule no longer in force, or two rules.

Two results the pipeline gives instead of a generated answer (:mod:`rag.lifecycle`):

- :func:`lapsed_notice`: nothing in force answers, but a superseded, deprecated, archived,
  expired or not-yet-effective document would have: the asker is told which document, that it
  is not in force and since (or from) when, and its successor when it names one. The old rule
  itself is never given: a refusal (``reason="no_longer_in_force"``) with the passages as its
  near misses, so an "ask a human" card shows a reviewer what was found.
- :func:`conflicting`: two current documents give different values for what is asked
  (:mod:`rag.check.conflicts`): both are stated, each with its source and its last-updated
  date, and the answer goes to review with a ``conflict`` problem; which one applies is for a
  person to say, not for the model to pick.
"""

from __future__ import annotations

from datetime import date

from rag.check.conflicts import Conflict
from rag.check.problem_texts import conflict_answer, conflict_message
from rag.language import Language
from rag.messages import lapsed_text
from rag.problems import Problem
from rag.results import Hit, Refusal, Unverified
from rag.search.fusion import RowArray
from rag.search.index import Index


def lapsed_notice(
    index: Index,
    question: str,
    rows: RowArray,
    *,
    k: int,
    min_score: float,
    language: Language,
    today: date,
) -> Refusal | None:
    """The notice for ``question`` when a document among ``rows`` (those not in force) would
    have passed the gate; ``None`` when none would."""
    if not len(rows):
        return None
    hits = tuple(index.search(question, k, rows=rows))
    if not hits or hits[0].score < min_score:
        return None
    chunk = hits[0].chunk
    life = chunk.lifecycle
    status = life.shown_status(today) or "expired"
    successor = life.superseded_by
    named = next((c for c in index.chunks if c.source == successor), None)
    text = lapsed_text(
        language,
        title=chunk.title or chunk.source,
        status=status,
        since=life.effective if status == "upcoming" else life.ended(),
        successor=(named.title or successor) if named is not None else successor,
        ended=status == "upcoming" or bool(life.expires),
    )
    return Refusal(question, text, hits, reason="no_longer_in_force", language=language)


def conflicting(
    question: str,
    hits: tuple[Hit, ...],
    conflict: Conflict,
    language: Language,
    timings: dict[str, float],
) -> Unverified:
    """Both values, each with its source and date, to review."""
    sides = [
        (side, hits[side.n - 1].chunk.title or hits[side.n - 1].chunk.source)
        for side in (conflict.first, conflict.second)
    ]
    draft = conflict_answer(
        language,
        [
            (side.n, title, hits[side.n - 1].chunk.lifecycle.updated, side.sentence)
            for side, title in sides
        ],
    )
    (first, first_title), (second, second_title) = sides
    message = conflict_message(
        language, (first.n, first_title, first.value), (second.n, second_title, second.value)
    )
    problem = Problem("conflict", message, refs=conflict.refs)
    return Unverified(question, draft, (problem,), hits, timings_ms=timings, language=language)
