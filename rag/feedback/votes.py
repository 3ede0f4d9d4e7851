"""Votes on answers (👍 / 👎), one per person per answer, where the bot and ``rag report``
both read them.

A :class:`VoteRecord` is one person's current vote on one answer: verdict, their optional
"what was wrong" note, the answer's cited passages, scope and index version, and the
question's standalone form — its text only when RECORD_QUESTIONS allows (``text``), always
its key (``hash``, the same key ``rag report``'s question records carry). A second click by
the same person replaces their vote; a note stays with a 👎 until the vote changes.

Layout in Redis (REDIS_URL set; shared by every process), under one prefix (REDIS_KEY_PREFIX +
``votes:``, so ``citebot:votes:``)::

    {prefix}answer:{answer}   hash person -> VoteRecord JSON; expires RETENTION_DAYS after
                              the last vote on the answer
    {prefix}answers           sorted set of answer ids by their last vote's time (what
                              :meth:`since` reads), trimmed on every write to the retention
                              and to MAX_ANSWERS

Without Redis, JSON lines under INDEX_DIR (:mod:`rag.feedback.files`); while Redis is away,
this process's memory, bounded the same way. :func:`rag.feedback.stores.vote_store` chooses.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from typing import Literal, Protocol

from cachetools import TTLCache
from pydantic import BaseModel, ConfigDict, ValidationError
from redis.asyncio import Redis

from rag.questions import normalize_question
from rag.storage.redis_guard import GuardedRedis, RedisUnavailable

VOTE_FORMAT = 1
DAY_SECONDS = 86400
KEYS = "votes:"
"""The votes' part of the deployment's keys, after REDIS_KEY_PREFIX (rag.storage.keys)."""
MAX_ANSWERS = 100_000
"""Answers with votes kept at most (the oldest dropped first): votes stay bounded."""
MAX_NOTE_CHARS = 1000

VoteVerdict = Literal["up", "down"]


def question_key(question: str) -> str:
    """The question's key, equal to ``rag report``'s (normalised, blake2b): joins a vote to
    the question's records without the text."""
    normal = normalize_question(question)
    return hashlib.blake2b(normal.encode("utf-8"), digest_size=8).hexdigest()


class VoteRecord(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    format: int = VOTE_FORMAT
    at: float
    """Epoch seconds of the click (of the note, once one is added)."""
    answer: str
    """Which answer: the platform's message id (Slack: ``channel:ts``)."""
    user: str
    verdict: VoteVerdict
    note: str = ""
    """What was wrong, in the voter's words (👎 only; optional)."""
    hash: str
    text: str | None = None
    """The standalone question, only when RECORD_QUESTIONS is on."""
    scope: str = "all"
    sources: tuple[str, ...] = ()
    """The cited passages' ids."""
    index_version: str = ""
    served_from: str = ""
    """``cache`` or ``reviewed`` when the answer was not freshly generated, else empty."""


def merged(earlier: VoteRecord | None, vote: VoteRecord) -> VoteRecord:
    """``vote`` replacing ``earlier``: a note survives a repeated 👎, not a change of mind."""
    if earlier is not None and earlier.verdict == vote.verdict and not vote.note:
        return vote.model_copy(update={"note": earlier.note})
    return vote


def with_note(vote: VoteRecord, note: str, at: float) -> VoteRecord:
    return vote.model_copy(update={"note": note.strip()[:MAX_NOTE_CHARS], "at": at})


def _text(value: object) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def parsed(values: Iterable[str | bytes]) -> list[VoteRecord]:
    votes = []
    for value in values:
        try:
            votes.append(VoteRecord.model_validate_json(value))
        except ValidationError:
            continue  # a damaged or future record: skipped, never fatal
    return sorted(votes, key=lambda vote: vote.at)


class VoteStore(Protocol):
    where: str
    """Where the votes are, for the report's heading."""

    async def cast(self, vote: VoteRecord) -> list[VoteRecord]:
        """Keep ``vote`` (replacing the person's earlier one); every vote on its answer now."""
        ...

    async def annotate(self, answer: str, user: str, note: str) -> list[VoteRecord] | None:
        """Add ``note`` to ``user``'s 👎 on ``answer``; every vote on it, ``None`` if they have
        no 👎 there."""
        ...

    async def since(self, since: float) -> list[VoteRecord]:
        """Every vote cast at or after ``since`` (epoch seconds), oldest first."""
        ...


class MemoryVotes:
    """One process: REDIS_URL unset, or the fallback while Redis is away."""

    def __init__(
        self,
        *,
        retention_days: int = 30,
        max_answers: int = MAX_ANSWERS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if retention_days < 1:
            msg = f"retention_days ({retention_days}) must be at least 1"
            raise ValueError(msg)
        self.where = "this process's memory (REDIS_URL unset)"
        self._clock = clock
        self._answers: TTLCache[str, dict[str, VoteRecord]] = TTLCache(
            maxsize=max_answers, ttl=retention_days * DAY_SECONDS, timer=clock
        )

    def _store(self, vote: VoteRecord) -> list[VoteRecord]:
        votes = dict(self._answers.get(vote.answer, {}))
        votes[vote.user] = vote
        self._answers[vote.answer] = votes  # re-set: its expiry counts from this vote
        return sorted(votes.values(), key=lambda v: v.at)

    async def cast(self, vote: VoteRecord) -> list[VoteRecord]:
        earlier = self._answers.get(vote.answer, {}).get(vote.user)
        return self._store(merged(earlier, vote))

    async def annotate(self, answer: str, user: str, note: str) -> list[VoteRecord] | None:
        vote = self._answers.get(answer, {}).get(user)
        if vote is None or vote.verdict != "down":
            return None
        return self._store(with_note(vote, note, self._clock()))

    async def since(self, since: float) -> list[VoteRecord]:
        self._answers.expire()
        found = [v for votes in self._answers.values() for v in votes.values() if v.at >= since]
        return sorted(found, key=lambda vote: vote.at)


class RedisVotes:
    """Shared by every process; this process's memory answers while Redis is away."""

    def __init__(
        self,
        redis: Redis | GuardedRedis,
        *,
        retention_days: int = 30,
        prefix: str | None = None,
        max_answers: int = MAX_ANSWERS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.local = MemoryVotes(retention_days=retention_days, clock=clock)
        self.redis = redis if isinstance(redis, GuardedRedis) else GuardedRedis(redis)
        self.prefix = f"{self.redis.key_prefix}{KEYS}" if prefix is None else prefix
        self.where = f"Redis ({self.prefix}*)"
        self._retention = retention_days * DAY_SECONDS
        self._max_answers = max_answers
        self._clock = clock

    def _key(self, answer: str) -> str:
        return f"{self.prefix}answer:{answer}"

    async def _write(self, vote: VoteRecord) -> list[VoteRecord]:
        key, index = self._key(vote.answer), f"{self.prefix}answers"
        client, now = self.redis.client, self._clock()
        async with client.pipeline(transaction=True) as pipe:
            pipe.hset(key, vote.user, vote.model_dump_json())
            pipe.expire(key, self._retention)
            pipe.zadd(index, {vote.answer: vote.at})
            pipe.zremrangebyscore(index, "-inf", now - self._retention)
            pipe.zremrangebyrank(index, 0, -self._max_answers - 1)
            pipe.expire(index, self._retention)
            pipe.hvals(key)
            replies = await pipe.execute()
        return parsed(replies[-1])

    async def _read(self, answer: str, user: str) -> VoteRecord | None:
        raw = await self.redis.run(lambda: self.redis.client.hget(self._key(answer), user))
        found = parsed([raw]) if raw is not None else []
        return found[0] if found else None

    async def cast(self, vote: VoteRecord) -> list[VoteRecord]:
        try:
            earlier = await self._read(vote.answer, vote.user)
            return await self.redis.run(lambda: self._write(merged(earlier, vote)))
        except RedisUnavailable:
            return await self.local.cast(vote)  # the breaker has logged the outage

    async def annotate(self, answer: str, user: str, note: str) -> list[VoteRecord] | None:
        try:
            vote = await self._read(answer, user)
            if vote is None or vote.verdict != "down":
                return None
            noted = with_note(vote, note, self._clock())
            return await self.redis.run(lambda: self._write(noted))
        except RedisUnavailable:
            return await self.local.annotate(answer, user, note)

    async def since(self, since: float) -> list[VoteRecord]:
        """Raises RedisUnavailable: a report must not pass this process's memory off as all."""
        client = self.redis.client
        cutoff = max(since, self._clock() - self._retention)

        async def read() -> list[VoteRecord]:
            answers = await client.zrangebyscore(f"{self.prefix}answers", cutoff, "+inf")
            async with client.pipeline(transaction=False) as pipe:
                for answer in answers:
                    pipe.hvals(self._key(_text(answer)))
                replies = await pipe.execute()
            return parsed(value for values in replies for value in values)

        return [vote for vote in await self.redis.run(read) if vote.at >= cutoff]
