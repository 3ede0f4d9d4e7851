"""What ``answer()`` returns: values, never exceptions.

``Answer``, ``Refusal`` and ``Unverified`` each carry the hits they were built from; sources
are numbered in hit order, so ``[n]`` in a text refers to ``hits[n - 1]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, cast

from rag.chunks import Chunk, content_hash
from rag.language import Language, detect_language
from rag.markers import cited_numbers
from rag.problems import Problem

Verdict = Literal["answer", "refusal", "unverified"]

_OF_QUESTION = cast("Language", "")
"""Default of ``language``: replaced by the question's language when the result is made."""


def _set_language(result: Answer | Refusal | Unverified) -> None:
    if cast("str", result.language) == _OF_QUESTION:
        object.__setattr__(result, "language", detect_language(result.question))


@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved chunk with the scores that ranked and gated it."""

    chunk: Chunk
    score: float
    """The gate's calibrated relevance: comparable across corpora, compared with MIN_SCORE."""
    lexical: float | None = None
    """Lexical similarity (cosine of the lexical vectors), when lexical search ran."""
    dense: float | None = None
    """Dense cosine similarity, when dense search ran."""
    rank: int = 0
    """Position in the fused ranking, from 1."""


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a cached or reviewed result came from, shown to the asker."""

    cached_at: datetime | None = None
    """When the answer was first given, if this one came from the cache."""
    reviewed_by: str | None = None
    """Reviewer's user id, if a person approved or wrote this answer."""
    reviewed_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    question: str
    text: str
    hits: tuple[Hit, ...]
    timings_ms: dict[str, float] = field(default_factory=dict)
    provenance: Provenance = field(default_factory=Provenance)
    language: Language = _OF_QUESTION
    """The asker's language, set once by the pipeline from the question: every edge writes
    in it without detecting again (a result made without one takes the question's)."""
    verdict: Literal["answer"] = "answer"

    def __post_init__(self) -> None:
        _set_language(self)

    @property
    def cited(self) -> tuple[int, ...]:
        """The source numbers the text cites, ascending."""
        return tuple(n for n in cited_numbers(self.text) if 1 <= n <= len(self.hits))


@dataclass(frozen=True, slots=True)
class Refusal:
    question: str
    text: str
    hits: tuple[Hit, ...]
    """The near misses: what was retrieved but judged not relevant enough."""
    reason: str = "below_threshold"
    """``below_threshold`` (gate) or ``model_refused`` (the model said the refusal sentence)."""
    timings_ms: dict[str, float] = field(default_factory=dict)
    provenance: Provenance = field(default_factory=Provenance)
    language: Language = _OF_QUESTION
    """The asker's language, set once by the pipeline from the question: every edge writes
    in it without detecting again (a result made without one takes the question's)."""
    verdict: Literal["refusal"] = "refusal"

    def __post_init__(self) -> None:
        _set_language(self)


@dataclass(frozen=True, slots=True)
class Unverified:
    question: str
    draft: str
    problems: tuple[Problem, ...]
    """What the checker found, each with its sentence and the sources it cites."""
    hits: tuple[Hit, ...]
    timings_ms: dict[str, float] = field(default_factory=dict)
    provenance: Provenance = field(default_factory=Provenance)
    language: Language = _OF_QUESTION
    """The asker's language, set once by the pipeline from the question: every edge writes
    in it without detecting again (a result made without one takes the question's)."""
    verdict: Literal["unverified"] = "unverified"

    def __post_init__(self) -> None:
        _set_language(self)

    @property
    def text(self) -> str:
        return self.draft


Result = Answer | Refusal | Unverified


def answer_hash(text: str) -> str:
    """Which answer text a vote or a withdrawal is about (the same text cached or reviewed)."""
    return content_hash(text.strip())
