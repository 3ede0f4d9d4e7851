"""Answers a person approved, edited or rejected, reused the next time the question comes.

A reviewer's decision should improve the bot, not vanish: an approved (or edited) answer is
stored for the normalised question and scope, with the id and content hash of every source it
was built from. :meth:`ReviewedAnswers.lookup` serves it again — hits rebuilt from the current
index, ``provenance.reviewed_by/at`` set — until any source it cites changes or disappears.
A rejected draft is remembered by its content hash, so :meth:`ReviewedAnswers.is_rejected`
stops the pipeline from queueing the very same draft for review again. An answer two people
voted down is withdrawn (:meth:`ReviewedAnswers.withdraw`): a reviewed one is forgotten, and
its text is remembered by hash, so :meth:`ReviewedAnswers.is_withdrawn` keeps the same text —
cached, reviewed or freshly generated — from being served again until a reviewer approves it.

Storage is a :class:`~rag.reviewed.stores.Store` (the shared :class:`GuardedRedis` in production,
a dict in one process). Store trouble never reaches the asker: lookups degrade to "nothing
reviewed", writes report ``False``; the Redis policy's breaker logs the outage once.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from pydantic import ValidationError

from rag.chunks import Chunk, content_hash
from rag.markers import cited_numbers
from rag.questions import question_digest
from rag.results import Answer, Hit, Provenance, answer_hash
from rag.reviewed.records import FORMAT_VERSION, RejectionRecord, ReviewedRecord
from rag.reviewed.stores import MemoryStore, RedisStore, Store
from rag.storage.keys import DEFAULT_KEY_PREFIX
from rag.storage.records import validation_error
from rag.storage.redis_guard import GuardedRedis, RedisUnavailable

__all__ = ["MemoryStore", "RedisStore", "ReviewedAnswers", "Store", "question_digest"]

logger = logging.getLogger(__name__)

KEYS = "reviewed:"
"""Reviewed answers' part of the deployment's keys, after REDIS_KEY_PREFIX (rag.storage.keys)."""


class ChunkSource(Protocol):
    """What lookup needs from the index: a chunk by its id (``rag.search.index.Index`` has it)."""

    def chunk(self, chunk_id: str) -> Chunk | None: ...


@dataclass(frozen=True, slots=True)
class ReviewedSource:
    """One numbered source of a reviewed answer as it was when the draft was written."""

    chunk_id: str
    chunk_hash: str
    score: float = 0.0
    rank: int = 0

    @classmethod
    def of(cls, hit: Hit) -> ReviewedSource:
        return cls(hit.chunk.id, hit.chunk.hash, hit.score, hit.rank)


def sources_of(hits: Sequence[Hit]) -> tuple[ReviewedSource, ...]:
    return tuple(ReviewedSource.of(hit) for hit in hits)


def _encode(
    question: str, text: str, sources: Sequence[ReviewedSource], reviewer: str, at: datetime
) -> str:
    return ReviewedRecord(
        v=FORMAT_VERSION,
        question=question,
        text=text,
        reviewed_by=reviewer,
        reviewed_at=at if at.tzinfo else at.replace(tzinfo=UTC),
        sources=[(s.chunk_id, s.chunk_hash, round(s.score, 6), s.rank) for s in sources],
    ).model_dump_json()


def _decode(raw: str) -> ReviewedRecord | None:
    try:
        return ReviewedRecord.model_validate_json(raw)
    except ValidationError as error:
        reason = validation_error("reviewed answer", error)
        logger.warning("ignoring a malformed reviewed answer record: %s", reason)
        return None


class ReviewedAnswers:
    """Reviewed answers and rejected drafts per (normalised question, scope)."""

    def __init__(
        self,
        store: Store,
        *,
        prefix: str = f"{DEFAULT_KEY_PREFIX}{KEYS}",
        ttl_seconds: int | None = None,
        rejection_ttl_seconds: int | None = 90 * 86400,
    ) -> None:
        for name, ttl in (
            ("ttl_seconds", ttl_seconds),
            ("rejection_ttl_seconds", rejection_ttl_seconds),
        ):
            if ttl is not None and ttl < 1:
                msg = f"{name} ({ttl}) must be at least 1 second, or None for no expiry"
                raise ValueError(msg)
        self._store = store
        self._prefix = prefix
        self._ttl = ttl_seconds
        self._rejection_ttl = rejection_ttl_seconds

    @classmethod
    def in_memory(cls, **options: Any) -> ReviewedAnswers:
        return cls(MemoryStore(), **options)

    @classmethod
    def over(cls, redis: GuardedRedis | None, **options: Any) -> ReviewedAnswers:
        """Over the process's shared Redis (every process sees the same decisions; keys under
        its key prefix), or in this process's memory when there is none (REDIS_URL unset)."""
        if redis is None:
            return cls.in_memory(**options)
        return cls(RedisStore(redis), **{"prefix": f"{redis.key_prefix}{KEYS}", **options})

    def _answer_key(self, digest: str) -> str:
        return f"{self._prefix}answer:{digest}"

    def _rejection_key(self, digest: str, draft: str) -> str:
        return f"{self._prefix}rejected:{digest}:{content_hash(draft.strip())}"

    def _withdrawn_key(self, digest: str, text_hash: str) -> str:
        return f"{self._prefix}withdrawn:{digest}:{text_hash}"

    async def lookup(
        self, question: str, *, scope: str, index: ChunkSource, digest: str | None = None
    ) -> Answer | None:
        """``digest`` (here and in :meth:`is_rejected`, :meth:`is_withdrawn`): the question's
        :func:`question_digest` when the caller has it already (the pipeline computes it once
        a question, for the cache key too)."""
        try:
            raw = await self._store.get(
                self._answer_key(digest or question_digest(question, scope))
            )
        except RedisUnavailable:
            return None  # answered normally; the breaker has logged the outage
        record = None if raw is None else _decode(raw)
        if record is None:
            return None
        return _rebuild(question, record, index)

    async def is_rejected(
        self, question: str, *, scope: str, draft: str, digest: str | None = None
    ) -> bool:
        try:
            raw = await self._store.get(
                self._rejection_key(digest or question_digest(question, scope), draft)
            )
        except RedisUnavailable:
            return False  # treated as a new draft; the breaker has logged the outage
        return raw is not None

    async def is_withdrawn(
        self, question: str, *, scope: str, text: str, digest: str | None = None
    ) -> bool:
        """Whether people voted this very text down for this question (and no reviewer has
        approved it since)."""
        try:
            raw = await self._store.get(
                self._withdrawn_key(digest or question_digest(question, scope), answer_hash(text))
            )
        except RedisUnavailable:
            return False  # served; the breaker has logged the outage
        return raw is not None

    async def withdraw(
        self,
        question: str,
        *,
        scope: str,
        text_hash: str,
        by: str,
        at: datetime,
        digest: str | None = None,
    ) -> bool:
        """Stop serving the answer whose text hashes to ``text_hash``: forget it if it is the
        reviewed answer, and remember the text as withdrawn; ``False`` if not stored.
        ``digest`` (here and in :meth:`approve`, :meth:`reject`): the question's
        :func:`question_digest`, for a question a button could only carry shortened."""
        digest = digest or question_digest(question, scope)
        key = self._answer_key(digest)
        value = RejectionRecord(v=FORMAT_VERSION, by=by, at=at).model_dump_json()
        try:
            raw = await self._store.get(key)
            record = None if raw is None else _decode(raw)
            if record is not None and answer_hash(record.text) == text_hash:
                await self._store.delete(key)
            withdrawn = self._withdrawn_key(digest, text_hash)
            await self._store.set(withdrawn, value, ttl_seconds=self._rejection_ttl)
        except RedisUnavailable:
            logger.warning("could not withdraw an answer (%s)", by)
            return False
        return True

    async def approve(
        self,
        question: str,
        *,
        scope: str,
        text: str,
        sources: Sequence[ReviewedSource],
        reviewer: str,
        at: datetime,
        digest: str | None = None,
    ) -> bool:
        """Store ``text`` (approved or edited) as the answer; ``False`` if it could not be."""
        if not text.strip():
            msg = "a reviewed answer needs text; got an empty one"
            raise ValueError(msg)
        record = _encode(question, text, sources, reviewer, at)
        try:
            digest = digest or question_digest(question, scope)
            await self._store.set(self._answer_key(digest), record, ttl_seconds=self._ttl)
            # A person vouches for this text now, even if votes had withdrawn it before.
            withdrawn = self._withdrawn_key(digest, answer_hash(text))
            await self._store.delete(withdrawn)
        except RedisUnavailable:
            logger.warning("could not store the reviewed answer by %s", reviewer)
            return False
        return True

    async def reject(
        self,
        question: str,
        *,
        scope: str,
        draft: str,
        reviewer: str,
        at: datetime,
        digest: str | None = None,
    ) -> bool:
        """Remember that ``draft`` was rejected for this question; ``False`` if not stored."""
        value = RejectionRecord(v=FORMAT_VERSION, by=reviewer, at=at).model_dump_json()
        try:
            await self._store.set(
                self._rejection_key(digest or question_digest(question, scope), draft),
                value,
                ttl_seconds=self._rejection_ttl,
            )
        except RedisUnavailable:
            logger.warning("could not store the rejection by %s", reviewer)
            return False
        return True

    async def aclose(self) -> None:
        await self._store.aclose()


def _rebuild(question: str, record: ReviewedRecord, index: ChunkSource) -> Answer | None:
    """The stored answer over today's chunks, or ``None`` when a cited source changed."""
    cited = set(cited_numbers(record.text))
    hits: list[Hit] = []
    for n, (chunk_id, chunk_hash, score, rank) in enumerate(record.sources, start=1):
        chunk = index.chunk(chunk_id)
        if chunk is None or (n in cited and chunk.hash != chunk_hash):
            return None
        hits.append(Hit(chunk, score=score, rank=rank))
    at = record.reviewed_at.astimezone(UTC)
    provenance = Provenance(reviewed_by=record.reviewed_by, reviewed_at=at)
    return Answer(question, record.text, tuple(hits), provenance=provenance)
