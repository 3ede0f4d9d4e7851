"""Skip a dependency that just failed, and say so once per outage, not once per request.

:class:`GuardedRedis` is that policy for the one Redis client the composition root builds.

The answer cache is an optimisation: when Redis is down the bot answers without it. Trying
Redis on every question would add a connect timeout to each one and a warning line to the log
for each one. After a failure the breaker stays open for ``cooldown_seconds``: callers skip
the dependency. Then one caller probes it; success closes the breaker (one info line: back),
failure opens it again quietly. The clock is injected, so tests move time instead of waiting.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from rag.errors import CitebotError
from rag.storage.keys import DEFAULT_KEY_PREFIX, key_prefix_problem

logger = logging.getLogger(__name__)


def describe(error: BaseException) -> str:
    """``ConnectionError: Error 111 connecting to ...`` (some libraries' repr hides the text)."""
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class Breaker:
    def __init__(
        self,
        name: str,
        *,
        cooldown_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if cooldown_seconds < 0:
            msg = f"cooldown_seconds ({cooldown_seconds}) must not be negative"
            raise ValueError(msg)
        self.name = name
        self.cooldown_seconds = cooldown_seconds
        self._clock = clock
        self._down = False
        self._retry_at = 0.0
        self.outages = 0
        """How many outages began since start (each logged once)."""

    @property
    def down(self) -> bool:
        return self._down

    def allows(self) -> bool:
        """Whether to use the dependency now; while down, one caller per cooldown probes it."""
        if not self._down:
            return True
        now = self._clock()
        if now < self._retry_at:
            return False
        self._retry_at = now + self.cooldown_seconds  # the others keep skipping while it probes
        return True

    def failed(self, error: BaseException) -> None:
        self._retry_at = self._clock() + self.cooldown_seconds
        if self._down:
            logger.debug("%s still unavailable: %s", self.name, describe(error))
            return
        self._down = True
        self.outages += 1
        logger.warning(
            "%s unavailable, continuing without it (retrying every %.0f s): %s",
            self.name,
            self.cooldown_seconds,
            describe(error),
        )

    def succeeded(self) -> None:
        if self._down:
            self._down = False
            logger.info("%s available again", self.name)


# --- one failure policy for every user of the shared Redis client ---------------------------

T = TypeVar("T")

REDIS_FAILURES = (RedisError, OSError, asyncio.TimeoutError)
"""What a sick Redis raises: connection refused/reset, timeouts, error replies."""


class RedisUnavailable(CitebotError):
    """Redis was skipped (breaker open) or failed just now; the breaker has been told."""


def redis_location(client: Redis) -> str:
    kwargs = client.connection_pool.connection_kwargs
    return f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}/{kwargs.get('db', 0)}"


class GuardedRedis:
    """One Redis client behind one failure policy, shared by the answer cache, dedupe, review
    state and reviewed answers: every call has a short overall timeout, a failure opens one
    breaker for all of them (skipped for ``cooldown_seconds``, one warning per outage), so
    during an outage no caller waits out a timeout per call.

    ``await redis.run(lambda: redis.client.get(key))`` returns the reply or raises
    :class:`RedisUnavailable`; the caller decides what "without Redis" means for it.
    ``key_prefix`` (REDIS_KEY_PREFIX) starts every key its users write or read
    (:mod:`rag.storage.keys`): it travels with the client, so no store can miss it.
    """

    def __init__(
        self,
        client: Redis,
        *,
        key_prefix: str = DEFAULT_KEY_PREFIX,
        timeout_seconds: float = 0.2,
        cooldown_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not timeout_seconds > 0:
            msg = f"timeout_seconds ({timeout_seconds}) must be a positive number of seconds"
            raise ValueError(msg)
        problem = key_prefix_problem(key_prefix)
        if problem:
            msg = f"key_prefix ({key_prefix!r}) {problem}"
            raise ValueError(msg)
        self.client = client
        self.key_prefix = key_prefix
        self.timeout_seconds = timeout_seconds
        self.location = redis_location(client)
        self.breaker = Breaker(
            f"Redis at {self.location}", cooldown_seconds=cooldown_seconds, clock=clock
        )

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        connect_timeout_seconds: float = 0.1,
        socket_timeout_seconds: float = 0.1,
        **options: Any,
    ) -> GuardedRedis:
        """A client over ``url`` that never retries inside redis-py: the breaker decides."""
        client = Redis.from_url(
            url,
            socket_connect_timeout=connect_timeout_seconds,
            socket_timeout=socket_timeout_seconds,
            retry=Retry(NoBackoff(), 0),
        )
        return cls(client, **options)

    async def run(
        self, command: Callable[[], Awaitable[T]], *, timeout_seconds: float | None = None
    ) -> T:
        """``command()``'s reply; raises :class:`RedisUnavailable` when skipped or failed.

        ``timeout_seconds`` bounds this call instead of the client's default: the answer
        cache, an optimisation, gives up sooner than dedupe or review state would."""
        if not self.breaker.allows():
            raise RedisUnavailable
        try:
            async with asyncio.timeout(timeout_seconds or self.timeout_seconds):
                value = await command()
        except REDIS_FAILURES as error:
            self.breaker.failed(error)
            raise RedisUnavailable from error
        self.breaker.succeeded()
        return value

    async def aclose(self) -> None:
        await self.client.aclose()


def guarded(redis: Redis | GuardedRedis | None) -> GuardedRedis | None:
    """Callers take either; a bare client gets its own policy (tests, one-off tools)."""
    if redis is None or isinstance(redis, GuardedRedis):
        return redis
    return GuardedRedis(redis)
