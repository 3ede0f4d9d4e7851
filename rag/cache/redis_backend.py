"""The answer cache in Redis: shared by every bot process, never in the way when Redis is not.

Keys under one prefix (default ``citebot:answer:``)::

    {prefix}value:{key}   the result as versioned JSON (rag.cache.codec), PX = its TTL
    {prefix}lock:{key}    who is computing it: a random token, PX = lock_seconds, kept alive
                          while the computation runs, deleted (if still ours) when it ends
    {prefix}stats:hits | misses | shared   INCR counters for ``python -m rag cache stats``

A hit is one round trip (a Lua GET that also counts the hit). Concurrent identical misses:
within a process they share one task (rag.cache.singleflight); across processes the first takes the
lock (SET NX PX) and the others poll for the value every ``poll_seconds``. A holder that dies
stops renewing its lock, the lock expires and one waiter takes over; a waiter that has waited
``max_wait_seconds`` computes anyway. When the holder's result is not kept (an unverified
draft, a failure), the next waiter in line computes its own.

Redis faults — unreachable at start or mid-run, slow, erroring — never fail a question: every
call has a short timeout (0.1 s connect and socket, 0.2 s overall; redis-py's own retries are
off), and a failure opens a breaker (rag.cache.breaker) that skips Redis for
``cooldown_seconds`` and logs once per outage. The question is then computed without the cache.
A stored value that cannot be read (older layout, damage) is a miss, logged once per key, and
is overwritten by the fresh result.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, TypeVar

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from rag.cache.answers import (
    CachePolicy,
    CacheStats,
    CacheUnavailable,
    Compute,
    served_from_cache,
    utc_now,
)
from rag.cache.breaker import Breaker, describe
from rag.cache.codec import CodecError, created_at, result_from_json, result_to_json
from rag.cache.singleflight import SingleFlight
from rag.results import Result

logger = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_PREFIX = "citebot:answer:"
FAILURES = (RedisError, OSError, asyncio.TimeoutError)
"""What a sick Redis raises: connection refused/reset, timeouts, error replies."""

_RELEASE = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
)
_RENEW = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0"
)
_GET_COUNTING_HITS = (
    "local value = redis.call('get', KEYS[1]) "
    "if value then redis.call('incr', KEYS[2]) end return value"
)
_REMEMBERED_UNREADABLE = 10_000


class _Down(Exception):
    """Redis failed during this question; the breaker has been told."""


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


def _positive(**values: float) -> None:
    for name, value in values.items():
        if not value > 0:
            msg = f"{name} ({value}) must be a positive number of seconds"
            raise ValueError(msg)


class RedisCache:
    def __init__(
        self,
        client: Redis,
        *,
        ttl_seconds: float = 86400,
        refusal_ttl_seconds: float = 3600,
        prefix: str = DEFAULT_PREFIX,
        timeout_seconds: float = 0.2,
        lock_seconds: float = 5.0,
        poll_seconds: float = 0.05,
        max_wait_seconds: float = 30.0,
        cooldown_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = utc_now,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        _positive(
            timeout_seconds=timeout_seconds,
            lock_seconds=lock_seconds,
            poll_seconds=poll_seconds,
            max_wait_seconds=max_wait_seconds,
        )
        if not prefix:
            msg = "prefix must not be empty: clear() deletes every key under it"
            raise ValueError(msg)
        self.policy = CachePolicy(ttl_seconds, refusal_ttl_seconds)
        self.prefix = prefix
        self.timeout_seconds = timeout_seconds
        self.lock_seconds = lock_seconds
        self.poll_seconds = poll_seconds
        self.max_wait_seconds = max_wait_seconds
        self._client = client
        self._clock = clock
        self._now = now
        self._sleep = sleep
        kwargs = client.connection_pool.connection_kwargs
        self.location = f"{kwargs.get('host', '?')}:{kwargs.get('port', '?')}/{kwargs.get('db', 0)}"
        self.breaker = Breaker(
            f"Redis answer cache at {self.location}",
            cooldown_seconds=cooldown_seconds,
            clock=clock,
        )
        self._flight: SingleFlight[Result] = SingleFlight()
        self._unreadable: set[str] = set()

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        connect_timeout_seconds: float = 0.1,
        socket_timeout_seconds: float = 0.1,
        **options: Any,
    ) -> RedisCache:
        """A cache over ``url`` that never retries inside redis-py: the breaker decides."""
        client = Redis.from_url(
            url,
            socket_connect_timeout=connect_timeout_seconds,
            socket_timeout=socket_timeout_seconds,
            retry=Retry(NoBackoff(), 0),
        )
        return cls(client, **options)

    # --- keys -----------------------------------------------------------------------------

    def _value_key(self, key: str) -> str:
        return f"{self.prefix}value:{key}"

    def _lock_key(self, key: str) -> str:
        return f"{self.prefix}lock:{key}"

    def _stat_key(self, name: str) -> str:
        return f"{self.prefix}stats:{name}"

    # --- every Redis call goes through here ----------------------------------------------

    async def _call(self, awaitable: Awaitable[T]) -> T:
        try:
            async with asyncio.timeout(self.timeout_seconds):
                value = await awaitable
        except FAILURES as error:
            self.breaker.failed(error)
            raise _Down from error
        self.breaker.succeeded()
        return value

    async def _quietly(self, command: Callable[[], Awaitable[object]]) -> None:
        """Best effort (counters, stores, releases): skipped during an outage, so a hung Redis
        costs a question one timeout at most; a failure is the breaker's to report."""
        if self.breaker.down:
            return
        with contextlib.suppress(_Down):
            await self._call(command())

    # --- the question path ----------------------------------------------------------------

    async def get_or_compute(self, key: str, compute: Compute) -> Result:
        started = time.perf_counter()
        use_redis = self.breaker.allows()
        if use_redis:
            try:
                hit = await self._read(key, started)
            except _Down:
                use_redis = False
            else:
                if hit is not None:
                    return hit
        work = (lambda: self._lead_or_wait(key, compute, started)) if use_redis else compute
        result, shared = await self._flight.run(key, work)
        if shared:
            await self._quietly(lambda: self._client.incr(self._stat_key("shared")))
        return result

    async def _lead_or_wait(self, key: str, compute: Compute, started: float) -> Result:
        try:
            return await self._wait_or_lead(key, compute, started)
        except _Down:
            return await compute()

    async def _read(self, key: str, started: float) -> Result | None:
        """The stored result as a hit (counted in the same round trip), or None."""
        keys = (self._value_key(key), self._stat_key("hits"))
        raw = await self._call(self._client.eval(_GET_COUNTING_HITS, 2, *keys))
        if raw is None:
            return None
        try:
            data = json.loads(raw)
            result = result_from_json(data)
            first_given = created_at(data)
        except (ValueError, CodecError) as error:  # JSON/UTF-8 errors are ValueErrors too
            await self._quietly(lambda: self._client.decr(self._stat_key("hits")))
            if key not in self._unreadable:
                if len(self._unreadable) >= _REMEMBERED_UNREADABLE:
                    self._unreadable.clear()
                self._unreadable.add(key)
                logger.warning("cached value %s is unreadable, recomputing it: %s", key, error)
            return None
        return served_from_cache(result, first_given, started)

    async def _wait_or_lead(self, key: str, compute: Compute, started: float) -> Result:
        """Take the lock and compute, or wait for whoever holds it; raises _Down before
        ``compute`` runs, never after."""
        token = secrets.token_hex(16)
        lock = self._lock_key(key)
        deadline = self._clock() + self.max_wait_seconds
        lock_ms = int(self.lock_seconds * 1000)
        while not await self._call(self._client.set(lock, token, nx=True, px=lock_ms)):
            if self._clock() >= deadline:
                logger.info("waited %.1f s for %s, computing it here", self.max_wait_seconds, key)
                return await self._compute_and_store(key, compute)
            await self._sleep(self.poll_seconds)
            hit = await self._read(key, started)
            if hit is not None:
                return hit
        try:
            # Whoever held the lock before us may have stored the value just now.
            hit = await self._read(key, started)
            if hit is not None:
                return hit
            renewing = asyncio.create_task(self._keep_lock(lock, token))
            try:
                return await self._compute_and_store(key, compute)
            finally:
                renewing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await renewing
        finally:
            await self._quietly(lambda: self._client.eval(_RELEASE, 1, lock, token))

    async def _compute_and_store(self, key: str, compute: Compute) -> Result:
        await self._quietly(lambda: self._client.incr(self._stat_key("misses")))
        result = await compute()
        ttl = self.policy.ttl_for(result)
        if ttl is not None:
            value = json.dumps(result_to_json(result, created_at=self._now()), ensure_ascii=False)
            px = max(1, int(ttl * 1000))
            await self._quietly(lambda: self._client.set(self._value_key(key), value, px=px))
        return result

    async def _keep_lock(self, lock: str, token: str) -> None:
        """Renew our lock while computing, so only a dead holder's lock expires."""
        lock_ms = int(self.lock_seconds * 1000)
        while True:
            # Not a retry wait: a heartbeat at a third of the lock's life, in real time.
            await asyncio.sleep(self.lock_seconds / 3)
            try:
                if not await self._call(self._client.eval(_RENEW, 1, lock, token, lock_ms)):
                    return
            except _Down:
                return

    # --- administration (python -m rag cache ...) --------------------------------------------

    async def _scan(self, pattern: str) -> list[bytes]:
        keys: list[bytes] = []
        async for name in self._client.scan_iter(match=pattern, count=500):
            keys.append(name)
        return keys

    async def _admin(self, awaitable: Awaitable[T]) -> T:
        try:
            return await awaitable
        except FAILURES as error:
            msg = f"Redis at {self.location} cannot be reached: {describe(error)}"
            raise CacheUnavailable(msg) from error

    async def stats(self) -> CacheStats:
        """Counters and the stored values' count and memory; raises CacheUnavailable."""
        return await self._admin(self._stats())

    async def _stats(self) -> CacheStats:
        names = ("hits", "misses", "shared")
        counts = await self._client.mget([self._stat_key(name) for name in names])
        hits, misses, shared = (int(count or 0) for count in counts)
        keys = await self._scan(_glob_escape(self._value_key("")) + "*")
        memory = 0
        for start in range(0, len(keys), 500):
            pipe = self._client.pipeline(transaction=False)
            for name in keys[start : start + 500]:
                pipe.memory_usage(name)
            memory += sum(int(used or 0) for used in await pipe.execute())
        return CacheStats("redis", hits, misses, shared, len(keys), memory)

    async def clear(self) -> int:
        """Delete every key under the prefix (values, locks, counters); how many values."""
        return await self._admin(self._clear())

    async def _clear(self) -> int:
        every = await self._scan(_glob_escape(self.prefix) + "*")
        values = self._value_key("").encode()
        for start in range(0, len(every), 500):
            await self._client.unlink(*every[start : start + 500])
        return sum(1 for name in every if name.startswith(values))

    async def aclose(self) -> None:
        await self._client.aclose()
