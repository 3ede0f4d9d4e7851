"""Results as versioned JSON, so a stored value outlives the code that wrote it.

The answer cache keeps results outside the process (Redis). A later release may read a value
an older one wrote, or a value may be damaged; reading must then fail with one clear error
(:class:`CodecError`, one line naming the field) that callers treat as "not stored", never
crash the question that found it. The layout is the pydantic models below (``"v": 1``)::

    {"v": 1, "verdict": "answer" | "refusal" | "unverified", "question", "text",
     "hits": [{"source", "heading": [...], "n", "start", "section", "title", "link",
               "doc_id", "text", "score", "lexical", "dense", "rank"}],
     "reason" (refusal), "problems" (unverified: [{"kind", "message", "sentence", "refs",
     "note"}]), "timings_ms",
     "created_at" (ISO 8601, UTC), "reviewed_by", "reviewed_at", "language" ("zh" | "en")}

``text`` of an ``unverified`` value is its draft. Validation is strict (no "0.8" for a
number, no ``true`` for a position, times must carry a zone). A new layout gets a new ``v``;
values of an unknown ``v`` are unreadable, not guessed at. (Problems were plain strings
before they carried their sentence and sources; the cache never keeps ``unverified`` values,
so none of that shape can be waiting in Redis, and one would read as "not stored".)
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    Field,
    TypeAdapter,
    ValidationError,
    field_serializer,
    field_validator,
)

from rag.chunks import Chunk
from rag.errors import CitebotError
from rag.language import Language
from rag.lifecycle import Lifecycle
from rag.problems import ProblemRecord
from rag.results import Answer, Hit, Provenance, Refusal, Result, Unverified
from rag.storage.records import Record, check_version, validation_error

VERSION = 1


class CodecError(CitebotError, ValueError):
    """A stored value cannot be read as a result; the message says what is wrong."""


class StoredHit(Record):
    source: str
    heading: list[str]
    n: int
    start: int
    section: int
    title: str
    link: str | None = None
    doc_id: str
    text: str
    score: float
    lexical: float | None = None
    dense: float | None = None
    rank: int
    lifecycle: list[str] | None = None
    """The document's :meth:`~rag.lifecycle.Lifecycle.as_row` (absent: current, undated)."""

    @classmethod
    def of(cls, hit: Hit) -> StoredHit:
        chunk = hit.chunk
        return cls(
            source=chunk.source,
            heading=list(chunk.heading),
            n=chunk.n,
            start=chunk.start,
            section=chunk.section,
            title=chunk.title,
            link=chunk.link,
            doc_id=chunk.doc_id,
            text=chunk.text,
            score=hit.score,
            lexical=hit.lexical,
            dense=hit.dense,
            rank=hit.rank,
            lifecycle=chunk.lifecycle.as_row(),
        )

    def hit(self) -> Hit:
        chunk = Chunk(
            source=self.source,
            text=self.text,
            n=self.n,
            heading=tuple(self.heading),
            start=self.start,
            section=self.section,
            title=self.title,
            link=self.link,
            doc_id=self.doc_id,
            lifecycle=Lifecycle.from_row(self.lifecycle),
        )
        return Hit(chunk, score=self.score, lexical=self.lexical, dense=self.dense, rank=self.rank)


class _Stored(Record):
    v: int  # strict: ``true`` is no version
    question: str
    text: str
    hits: list[StoredHit]
    timings_ms: dict[str, float] = Field(default_factory=dict)
    created_at: AwareDatetime
    reviewed_by: str | None = None
    reviewed_at: AwareDatetime | None = None
    language: Language | None = None
    """Absent in values stored before results carried it: the question's language then."""

    @field_serializer("created_at", "reviewed_at")
    def _iso(self, moment: datetime | None) -> str | None:
        # "+00:00", as values were always written, rather than pydantic's "Z"
        return None if moment is None else moment.astimezone(UTC).isoformat()

    @field_validator("v")
    @classmethod
    def _readable(cls, version: int) -> int:
        return check_version(version, VERSION)

    def provenance(self) -> Provenance:
        at = None if self.reviewed_at is None else self.reviewed_at.astimezone(UTC)
        return Provenance(reviewed_by=self.reviewed_by, reviewed_at=at)

    def parts(self) -> tuple[str, str, tuple[Hit, ...]]:
        return self.question, self.text, tuple(hit.hit() for hit in self.hits)


class StoredAnswer(_Stored):
    verdict: Literal["answer"]

    def result(self) -> Result:
        return Answer(*self.parts(), timings_ms=dict(self.timings_ms))


class StoredRefusal(_Stored):
    verdict: Literal["refusal"]
    reason: str

    def result(self) -> Result:
        return Refusal(*self.parts(), reason=self.reason, timings_ms=dict(self.timings_ms))


class StoredUnverified(_Stored):
    verdict: Literal["unverified"]
    problems: list[ProblemRecord]

    def result(self) -> Result:
        question, draft, hits = self.parts()
        problems = tuple(problem.problem() for problem in self.problems)
        return Unverified(question, draft, problems, hits, timings_ms=dict(self.timings_ms))


Stored = Annotated[StoredAnswer | StoredRefusal | StoredUnverified, Field(discriminator="verdict")]
_STORED: TypeAdapter[StoredAnswer | StoredRefusal | StoredUnverified] = TypeAdapter(Stored)


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)


def encode(result: Result, *, created_at: datetime | None = None) -> str:
    """The result as a JSON string; ``created_at`` defaults to now (UTC)."""
    common: dict[str, Any] = {
        "v": VERSION,
        "question": result.question,
        "text": result.text,
        "hits": [StoredHit.of(hit) for hit in result.hits],
        "timings_ms": dict(result.timings_ms),
        "created_at": _utc(created_at or datetime.now(UTC)),
        "reviewed_by": result.provenance.reviewed_by,
        "reviewed_at": _utc(result.provenance.reviewed_at),
        "language": result.language,
    }
    stored: _Stored
    if isinstance(result, Refusal):
        stored = StoredRefusal(verdict="refusal", reason=result.reason, **common)
    elif isinstance(result, Unverified):
        problems = [ProblemRecord.of(problem) for problem in result.problems]
        stored = StoredUnverified(verdict="unverified", problems=problems, **common)
    else:
        stored = StoredAnswer(verdict="answer", **common)
    return stored.model_dump_json()


def decode(raw: str | bytes) -> tuple[Result, datetime]:
    """The result ``raw`` holds and when it was first given (UTC); raises :class:`CodecError`
    (one line naming the field) on anything unreadable."""
    try:
        stored = _STORED.validate_json(raw)
    except ValidationError as error:
        raise CodecError(validation_error("value", error)) from None
    result = replace(stored.result(), provenance=stored.provenance())
    if stored.language is not None:
        result = replace(result, language=stored.language)
    return result, stored.created_at.astimezone(UTC)
