"""Review state: the exactly-once guard on decisions and the list of open reviews.

Two places hold a review, on purpose:

- the **card** (its buttons carry a compact :class:`~bot.review.records.Ticket`: review id,
  origin channel, thread, asker, draft time, the sources' ids and hashes; the draft and
  question are on the card), so a review can still be decided after a restart or a Redis
  flush;
- **Redis** holds the full record while it is open (what App Home lists) and the guard: a
  decision is ``SET NX`` on the review id, so two reviewers clicking at once, or Slack
  delivering a click twice, apply it once; the loser reads who won and when.

When Redis is unset or fails (the shared :class:`rag.GuardedRedis`: short timeouts, one
breaker, one warning per outage), an in-process copy answers instead: one process stays
exactly-once — claims on one review are serialised in the process, so two clicks racing
inside it while Redis fails still apply once (and the loser learns the real winner); several
processes without Redis could not be, and say so in the log.

What is stored, and how older layouts are read, is :mod:`bot.review.records`. An open review
that cannot be read is left out (the card is still the copy of record), with one warning per
process; a stored decision that cannot be read still counts as decided — :meth:`claim` raises
rather than apply a second decision over it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from redis.asyncio import Redis

from bot.review.records import Decision, OpenReview, RecordError
from rag import GuardedRedis, RedisUnavailable

logger = logging.getLogger(__name__)

DECISION_TTL_SECONDS = 30 * 86400
MAX_LOCAL = 10_000
"""Decisions and "once" marks this process remembers (oldest forgotten first)."""
KEYS = "review:"
"""Review state's part of the deployment's keys, after REDIS_KEY_PREFIX."""
T = TypeVar("T")


class ReviewState:
    """Redis when given (shared by every process), else — or when it fails — this process."""

    def __init__(
        self,
        redis: GuardedRedis | None = None,
        *,
        prefix: str | None = None,
        clock: Callable[[], float] = time.time,
        owns_client: bool = False,
    ) -> None:
        """``prefix``: of every key; ``None``: the client's key prefix + :data:`KEYS`."""
        self._redis = redis
        self._owns_client = owns_client
        base = "" if redis is None else redis.key_prefix
        self._prefix = f"{base}{KEYS}" if prefix is None else prefix
        self._clock = clock
        self._decisions: dict[str, Decision] = {}
        self._open: dict[str, OpenReview] = {}
        self._marks: dict[str, None] = {}
        self._claiming: dict[str, asyncio.Lock] = {}
        self._warned = False

    @property
    def _open_key(self) -> str:
        return f"{self._prefix}open"

    def _decision_key(self, review_id: str) -> str:
        return f"{self._prefix}decided:{review_id}"

    async def _shared(self, command: Callable[[Redis], Awaitable[T]], fallback: T) -> T:
        """``command`` on the shared Redis, or ``fallback`` when there is none or it is down
        (the shared breaker has logged the outage once)."""
        redis = self._redis
        if redis is None:
            return fallback
        try:
            return await redis.run(lambda: command(redis.client))
        except RedisUnavailable:
            return fallback

    async def claim(self, review_id: str, decision: Decision) -> Decision | None:
        """Record ``decision`` unless one exists: ``None`` if ours won, else the one that did."""
        # One claim per review at a time in this process: a click racing this one waits and
        # then sees the outcome, even when Redis fails and this process decides alone.
        async with self._claiming.setdefault(review_id, asyncio.Lock()):
            earlier = self._decisions.get(review_id)
            if earlier is not None:
                return earlier
            key, value, redis = self._decision_key(review_id), decision.to_json(), self._redis
            try:
                if redis is not None and not await redis.run(
                    lambda: redis.client.set(key, value, nx=True, ex=DECISION_TTL_SECONDS)
                ):
                    raw = await redis.run(lambda: redis.client.get(key))
                    if raw is not None:
                        return Decision.from_json(raw)
            except RedisUnavailable:
                logger.info("review guard: deciding %s in this process only", review_id)
            self._remember(self._decisions, review_id, decision)
            return None

    @staticmethod
    def _remember(store: dict[str, Any], key: str, value: Any) -> None:
        store[key] = value
        while len(store) > MAX_LOCAL:
            del store[next(iter(store))]

    async def first(self, key: str, *, ttl_seconds: int = DECISION_TTL_SECONDS) -> bool:
        """``True`` only for the first caller with ``key`` (e.g. one "Ask a human" per reply)."""
        if key in self._marks:
            return False
        self._remember(self._marks, key, None)
        once = f"{self._prefix}once:{key}"
        return bool(await self._shared(lambda r: r.set(once, "1", nx=True, ex=ttl_seconds), True))

    async def release(self, review_id: str) -> None:
        """Undo a claim whose decision could not be delivered, so it can be tried again."""
        self._decisions.pop(review_id, None)
        key = self._decision_key(review_id)
        await self._shared(lambda r: r.delete(key), 0)

    async def decision(self, review_id: str) -> Decision | None:
        key = self._decision_key(review_id)
        raw = await self._shared(lambda r: r.get(key), None)
        if raw is None:
            return self._decisions.get(review_id)
        try:
            return Decision.from_json(raw)
        except RecordError as error:
            self._unreadable(error)
            return self._decisions.get(review_id)

    async def open(self, review: OpenReview) -> None:
        review_id, value = review.ticket.review_id, review.to_json()
        self._open[review_id] = review
        await self._shared(lambda r: r.hset(self._open_key, review_id, value), 0)

    async def get(self, review_id: str) -> OpenReview | None:
        raw = await self._shared(lambda r: r.hget(self._open_key, review_id), None)
        stored = self._read(raw) if raw is not None else None
        return stored or self._open.get(review_id)

    async def close(self, review_id: str) -> None:
        self._open.pop(review_id, None)
        await self._shared(lambda r: r.hdel(self._open_key, review_id), 0)

    async def pending(self) -> list[OpenReview]:
        """Open reviews, oldest first (this process's own when Redis is unset or down)."""
        stored = await self._shared(lambda r: r.hgetall(self._open_key), None)
        reviews = dict(self._open)
        if stored is not None:
            reviews = {}
            for value in stored.values():
                review = self._read(value)
                if review is not None:
                    reviews[review.ticket.review_id] = review
        return sorted(reviews.values(), key=lambda review: review.ticket.created)

    def _read(self, raw: str | bytes) -> OpenReview | None:
        try:
            return OpenReview.from_json(raw)
        except RecordError as error:
            self._unreadable(error)
            return None

    def _unreadable(self, error: RecordError) -> None:
        """One warning per process: a damaged store would otherwise log on every App Home."""
        if not self._warned:
            self._warned = True
            logger.warning("review store: left out a record it cannot read (%s)", error)

    async def aclose(self) -> None:
        """Closes the Redis client only if this object was told it owns it."""
        if self._redis is not None and self._owns_client:
            await self._redis.aclose()
