"""One record per question answered by the bot, and one per review decision.

A question record keeps what the report needs — when, a hash, verdict and reason, scope,
cache hit, the cited (or nearest) documents, timings, the index version — and its text only
when :func:`keeps_text` says so: refused and unverified questions are the point of the report
(the documents to write), so their text is kept unless ``RECORD_QUESTIONS=false``; answered
questions keep their text only with ``LOG_QUESTIONS`` on, as the logs do.
"""

from __future__ import annotations

import hashlib
import time
from typing import Literal

from pydantic import BaseModel, ConfigDict

from rag.questions import normalize_question
from rag.results import Answer, Refusal, Result

RECORD_FORMAT = 1
NEAREST_SOURCES = 3
"""Documents kept for a refusal or an unverified draft: the near misses, best first."""


def question_key(question: str) -> str:
    """Joins one question's records across spellings and processes (never ``hash()``)."""
    normal = normalize_question(question)
    return hashlib.blake2b(normal.encode("utf-8"), digest_size=8).hexdigest()


def keeps_text(verdict: str, *, record_questions: bool, log_questions: bool) -> bool:
    if not record_questions:
        return False
    return verdict != "answer" or log_questions


class QuestionRecord(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    format: int = RECORD_FORMAT
    at: float
    """Epoch seconds when the result was given."""
    hash: str
    verdict: Literal["answer", "refusal", "unverified"]
    reason: str | None = None
    scope: str = "all"
    cached: bool = False
    reviewed: bool = False
    sources: tuple[str, ...] = ()
    """Documents the answer cited; for a refusal or unverified draft, the nearest ones."""
    index_version: str = ""
    total_ms: float | None = None
    text: str | None = None


class ReviewRecord(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    format: int = RECORD_FORMAT
    at: float
    review_id: str
    kind: str
    """``review`` (an unverified draft) or ``gap`` (an asker asked a human after a refusal)."""
    verdict: str
    latency_seconds: float | None = None


def _sources(result: Result) -> tuple[str, ...]:
    if isinstance(result, Answer):
        cited = [result.hits[n - 1].chunk.source for n in result.cited]
    else:
        cited = [hit.chunk.source for hit in result.hits[:NEAREST_SOURCES]]
    return tuple(dict.fromkeys(cited))


def question_record(
    result: Result,
    *,
    scope: str,
    index_version: str,
    record_questions: bool,
    log_questions: bool,
    at: float | None = None,
) -> QuestionRecord:
    keep = keeps_text(
        result.verdict, record_questions=record_questions, log_questions=log_questions
    )
    return QuestionRecord(
        at=time.time() if at is None else at,
        hash=question_key(result.question),
        verdict=result.verdict,
        reason=result.reason if isinstance(result, Refusal) else None,
        scope=scope,
        cached=result.provenance.cached_at is not None,
        reviewed=result.provenance.reviewed_by is not None,
        sources=_sources(result),
        index_version=index_version,
        total_ms=result.timings_ms.get("total"),
        text=result.question if keep else None,
    )
