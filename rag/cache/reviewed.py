"""Answers a person approved, edited or rejected, reused the next time the question comes.

A reviewer's decision should improve the bot, not vanish: an approved (or edited) answer is
stored for the normalised question and scope, with the id and content hash of every source it
was built from. :meth:`ReviewedAnswers.lookup` serves it again — hits rebuilt from the current
index, ``provenance.reviewed_by/at`` set — until any source it cites changes or disappears.
A rejected draft is remembered by its content hash, so :meth:`ReviewedAnswers.is_rejected`
stops the pipeline from queueing the very same draft for review again.

Storage is a three-method :class:`Store` (the shared :class:`GuardedRedis` in production, a
dict in one process). Store trouble never reaches the asker: lookups degrade to "nothing
reviewed", writes report ``False``; the Redis policy's breaker logs the outage once.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from cachetools import TLRUCache
from pydantic import ValidationError
from redis.asyncio import Redis

from rag.cache.answers import normalize_question
from rag.cache.breaker import GuardedRedis, RedisUnavailable
from rag.cache.reviewed_records import FORMAT_VERSION, RejectionRecord, ReviewedRecord
from rag.chunks import Chunk, content_hash
from rag.markers import cited_numbers
from rag.records import validation_error
from rag.results import Answer, Hit, Provenance

logger = logging.getLogger(__name__)

DEFAULT_PREFIX = "citebot:reviewed:"


class ChunkSource(Protocol):
    """What lookup needs from the index: a chunk by its id (``rag.search.index.Index`` has it)."""

    def chunk(self, chunk_id: str) -> Chunk | None: ...


class Store(Protocol):
    async def get(self, key: str) -> str | None: ...
    async def set(self, key: str, value: str, *, ttl_seconds: int | None) -> None: ...
    async def aclose(self) -> None: ...


class MemoryStore:
    """One process only: what was reviewed is forgotten on restart."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        # Unbounded, like Redis without maxmemory; each value has its own TTL (or none).
        self._values: TLRUCache[str, tuple[str, float]] = TLRUCache(
            math.inf, ttu=lambda _key, value, now: now + value[1], timer=clock
        )

    async def get(self, key: str) -> str | None:
        value = self._values.get(key)
        return None if value is None else value[0]

    async def set(self, key: str, value: str, *, ttl_seconds: int | None) -> None:
        self._values[key] = (value, math.inf if ttl_seconds is None else ttl_seconds)

    async def aclose(self) -> None:
        self._values.clear()


class RedisStore:
    """Over the shared Redis (a bare client gets its own policy); raises RedisUnavailable.
    Closes the client on :meth:`aclose` only when told it owns it, so a client shared with the
    dedupe and review state is closed by whoever made it."""

    def __init__(self, client: Redis | GuardedRedis, *, owns_client: bool = False) -> None:
        self._redis = client if isinstance(client, GuardedRedis) else GuardedRedis(client)
        self._owns_client = owns_client

    async def get(self, key: str) -> str | None:
        value = await self._redis.run(lambda: self._redis.client.get(key))
        if value is None:
            return None
        return value.decode("utf-8") if isinstance(value, bytes) else str(value)

    async def set(self, key: str, value: str, *, ttl_seconds: int | None) -> None:
        await self._redis.run(lambda: self._redis.client.set(key, value, ex=ttl_seconds))

    async def aclose(self) -> None:
        if self._owns_client:
            await self._redis.aclose()


def _digest(*parts: str) -> str:
    return hashlib.blake2b("\x00".join(parts).encode("utf-8"), digest_size=16).hexdigest()


def question_digest(question: str, scope: str) -> str:
    """Stable id of a (normalised question, scope): keys and log lines, never the text.

    Normalised exactly as the answer cache does, so a reviewed answer and a cached one agree
    on which questions are "the same"."""
    return _digest(scope, normalize_question(question))


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
        prefix: str = DEFAULT_PREFIX,
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

    def _answer_key(self, question: str, scope: str) -> str:
        return f"{self._prefix}answer:{question_digest(question, scope)}"

    def _rejection_key(self, question: str, scope: str, draft: str) -> str:
        draft_hash = content_hash(draft.strip())
        return f"{self._prefix}rejected:{question_digest(question, scope)}:{draft_hash}"

    async def lookup(self, question: str, *, scope: str, index: ChunkSource) -> Answer | None:
        try:
            raw = await self._store.get(self._answer_key(question, scope))
        except RedisUnavailable:
            return None  # answered normally; the breaker has logged the outage
        record = None if raw is None else _decode(raw)
        if record is None:
            return None
        return _rebuild(question, record, index)

    async def is_rejected(self, question: str, *, scope: str, draft: str) -> bool:
        try:
            raw = await self._store.get(self._rejection_key(question, scope, draft))
        except RedisUnavailable:
            return False  # treated as a new draft; the breaker has logged the outage
        return raw is not None

    async def approve(
        self,
        question: str,
        *,
        scope: str,
        text: str,
        sources: Sequence[ReviewedSource],
        reviewer: str,
        at: datetime,
    ) -> bool:
        """Store ``text`` (approved or edited) as the answer; ``False`` if it could not be."""
        if not text.strip():
            msg = "a reviewed answer needs text; got an empty one"
            raise ValueError(msg)
        record = _encode(question, text, sources, reviewer, at)
        try:
            await self._store.set(self._answer_key(question, scope), record, ttl_seconds=self._ttl)
        except RedisUnavailable:
            logger.warning("could not store the reviewed answer by %s", reviewer)
            return False
        return True

    async def reject(
        self, question: str, *, scope: str, draft: str, reviewer: str, at: datetime
    ) -> bool:
        """Remember that ``draft`` was rejected for this question; ``False`` if not stored."""
        value = RejectionRecord(v=FORMAT_VERSION, by=reviewer, at=at).model_dump_json()
        try:
            await self._store.set(
                self._rejection_key(question, scope, draft),
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
