"""Votes on answers: one per person per answer, a second click changes it (platform-neutral).

A platform's feedback buttons (Slack: ``feedback_buttons`` in a ``context_actions`` block) send
a :class:`Vote`; :class:`Votes` keeps it — in Redis when set (a hash per answer, person ->
verdict, expiring after :data:`VOTE_TTL_SECONDS`), in this process's memory otherwise or while
Redis is away — and writes one structured log line per vote on ``citebot.feedback``: verdict,
the answer's cited sources and index version, and the question's hash (its standalone text
only under LOG_QUESTIONS, like every question line).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from cachetools import TTLCache
from redis.asyncio import Redis

from bot.questionlog import question_hash
from rag import GuardedRedis, RedisUnavailable, guarded

logger = logging.getLogger("citebot.feedback")

Verdict = Literal["up", "down"]
VOTE_TTL_SECONDS = 90 * 24 * 3600
"""Votes are kept a quarter: long enough to read trends, bounded like everything in Redis."""
MAX_LOCAL_ANSWERS = 10_000


@dataclass(frozen=True, slots=True)
class Vote:
    answer: str
    """Which answer (Slack: channel and message ts)."""
    user: str
    verdict: Verdict
    question: str
    """The standalone question the answer was given to."""
    sources: tuple[str, ...] = ()
    """The cited passages' ids."""
    index_version: str = ""
    served_from: str = ""
    """``cache`` or ``reviewed`` when the answer was not freshly generated."""


class Votes:
    def __init__(
        self,
        redis: Redis | GuardedRedis | None,
        *,
        log_questions: bool = False,
        prefix: str = "citebot:votes:",
        ttl_seconds: int = VOTE_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.redis = guarded(redis)
        self.log_questions = log_questions
        self.prefix = prefix
        self.ttl_seconds = ttl_seconds
        self._local: TTLCache[str, dict[str, str]] = TTLCache(
            maxsize=MAX_LOCAL_ANSWERS, ttl=ttl_seconds, timer=clock
        )

    async def cast(self, vote: Vote) -> Mapping[str, str]:
        """Record ``vote`` (replacing the person's earlier one); every vote on the answer now."""
        local = self._local.setdefault(vote.answer, {})
        local[vote.user] = vote.verdict
        self._local[vote.answer] = local
        votes: Mapping[str, str] = dict(local)
        redis = self.redis
        if redis is not None:
            name = self.prefix + vote.answer

            async def store() -> dict[bytes | str, bytes | str]:
                async with redis.client.pipeline(transaction=True) as pipe:
                    pipe.hset(name, vote.user, vote.verdict)
                    pipe.expire(name, self.ttl_seconds)
                    pipe.hgetall(name)
                    replies = await pipe.execute()
                return dict(replies[-1])

            try:
                stored = await redis.run(store)
            except RedisUnavailable:
                logger.debug("votes: Redis unavailable; %s kept in this process", name)
            else:
                votes = {_text(k): _text(v) for k, v in stored.items()}
        self._log(vote, votes)
        return votes

    def _log(self, vote: Vote, votes: Mapping[str, str]) -> None:
        data: dict[str, object] = {
            "event": "feedback",
            "answer": vote.answer,
            "verdict": vote.verdict,
            "question_hash": question_hash(vote.question),
            "sources": list(vote.sources),
            "index_version": vote.index_version,
            "served_from": vote.served_from or None,
            "up": sum(1 for v in votes.values() if v == "up"),
            "down": sum(1 for v in votes.values() if v == "down"),
        }
        if self.log_questions:
            data["question"] = vote.question
        logger.info("%s", json.dumps(data, ensure_ascii=False))


def _text(item: bytes | str) -> str:
    return item.decode() if isinstance(item, bytes) else item
