"""Exactly one reply per question, although Slack delivers some questions more than once.

Two kinds of duplicates reach the bot (slack-facts §3, §4):
- retries of one event (same ``event_id``; ``X-Slack-Retry-Num`` 1..3), possibly while the
  first delivery is still being answered;
- one mention delivered as both ``app_mention`` and ``message`` (different ``event_id``, same
  channel and ``ts``).
A question is answered only if it is the first to claim *both* its event key and its message
key. Claims are made in Redis, shared by every process, by one atomic script (``SET … EX`` on
all keys if none exists yet).

When Redis fails (down, restarting, timing out) the decision falls back to this process's
memory, which records every claim — also those made through Redis — *before* Redis is asked:
the ``app_mention``/``message`` twins arrive within milliseconds, so two claims are often in
flight at once, and both would fall back to "first" if memory were written only after Redis
answered. So a retry or a twin event that reaches the same process is still recognised while
Redis blinks (or after it restarts empty), and a question is never dropped because Redis is
away. Redis is reached through the shared :class:`rag.GuardedRedis`: during an outage its
breaker skips Redis (no timeout per event) and logs once. The one case left: during an outage,
duplicates that land on *different* processes can each be answered once. We choose that over
silence (a question that nobody answers) and count every fallback (``fallbacks``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from cachetools import TTLCache

from rag import GuardedRedis, RedisUnavailable

logger = logging.getLogger(__name__)

DEFAULT_TTL_SECONDS = 3600
"""Slack's last retry comes about 6 minutes after the event; an hour leaves a wide margin."""
MAX_LOCAL_KEYS = 200_000
KEYS = "dedupe:"
"""Dedupe's part of the deployment's keys, after REDIS_KEY_PREFIX."""

_CLAIM_ALL = """
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then return 0 end
end
for _, key in ipairs(KEYS) do
  redis.call('SET', key, '1', 'EX', ARGV[1])
end
return 1
"""
"""All keys or none, atomically: claiming them one SET NX at a time, two twins racing could
each win one key and both stop, and the question would never be answered."""


def event_key(event_id: str) -> str:
    return f"event:{event_id}"


def message_key(channel: str, ts: str) -> str:
    return f"message:{channel}:{ts}"


class Dedupe:
    def __init__(
        self,
        redis: GuardedRedis | None,
        *,
        ttl_seconds: int = DEFAULT_TTL_SECONDS,
        prefix: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_local: int = MAX_LOCAL_KEYS,
    ) -> None:
        if ttl_seconds < 1 or max_local < 1:
            msg = f"ttl_seconds ({ttl_seconds}) and max_local ({max_local}) must be at least 1"
            raise ValueError(msg)
        self._redis = redis
        self.ttl_seconds = ttl_seconds
        self._prefix = prefix
        """Of every key; ``None``: the client's key prefix + :data:`KEYS`."""
        self.clock = clock
        self.max_local = max_local
        self._local: TTLCache[str, bool] = TTLCache(max_local, ttl_seconds, timer=clock)
        """Keys claimed in this process within ``ttl_seconds`` (at most ``max_local``: the
        oldest claims are forgotten first)."""
        self.fallbacks = 0
        """How many decisions were made without Redis because it failed."""

    @property
    def prefix(self) -> str:
        if self._prefix is not None:
            return self._prefix
        return f"{'' if self._redis is None else self._redis.key_prefix}{KEYS}"

    @property
    def redis(self) -> GuardedRedis | None:
        return self._redis

    @redis.setter
    def redis(self, redis: GuardedRedis | None) -> None:
        self._redis = redis

    async def claim(self, *keys: str) -> bool:
        """True when this is the first time any of ``keys`` is seen (all are now claimed)."""
        if any(key in self._local for key in keys):
            return False
        # Recorded before the first await, so a concurrent claim in this process sees it.
        for key in keys:
            self._local[key] = True
        return await self._claim_shared(keys)

    async def _claim_shared(self, keys: tuple[str, ...]) -> bool:
        redis = self._redis
        if redis is None:
            return True
        names = [self.prefix + key for key in keys]
        try:
            claimed = await redis.run(
                lambda: redis.client.eval(_CLAIM_ALL, len(names), *names, self.ttl_seconds)
            )
        except RedisUnavailable:
            self.fallbacks += 1
            logger.debug("dedupe: Redis unavailable; deciding %s in this process", keys)
            return True
        return bool(claimed)
