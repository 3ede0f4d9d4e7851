"""The answer cache in Redis: shared by every bot process, never in the way when Redis is not.

Keys under one prefix (REDIS_KEY_PREFIX + ``answer:``; by default ``citebot:answer:``)::

    {prefix}value:{key}   the result as versioned JSON (rag.cache.codec), PX = its TTL
    {prefix}lock:{key}    who is computing it: a redis-py Lock (random token, PX = lock_seconds),
                          renewed while the computation runs, released (if still ours) at its end
    {prefix}stats:hits | misses | shared   INCR counters for ``python -m rag cache stats``

A hit is one round trip (a Lua GET that also counts the hit); a withdrawal, one GETDEL.
Concurrent identical misses: within a process they share one task (rag.cache.singleflight);
across processes the first takes the lock and the others poll for the value every
``poll_seconds``. A holder that dies stops renewing its lock, the lock expires and one waiter
takes over; a waiter that has waited ``max_wait_seconds`` computes anyway. When the holder's
result is not kept (an unverified draft, a failure), the next waiter computes its own.

Redis faults — unreachable at start or mid-run, slow, erroring — never fail a question. The
cache uses the process's one :class:`~rag.storage.redis_guard.GuardedRedis` (built at the edge and
shared with dedupe, review state and reviewed answers; redis-py's own retries are off): every
cache call is bounded by the cache's own short ``timeout_seconds`` (0.2 s overall, whatever the
shared client's longer default), and a failure opens the one shared breaker that skips Redis
for its cooldown and logs once per outage. The question is then computed without the cache.
An unreadable stored value (older layout, damage) is a miss, logged once, and overwritten.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.lock import Lock
from redis.exceptions import LockError

from rag.cache import redis_admin
from rag.cache.answers import CachePolicy, CacheStats, Compute, served_from_cache, utc_now
from rag.cache.codec import CodecError, decode, encode
from rag.cache.singleflight import SingleFlight
from rag.results import Result
from rag.storage.keys import DEFAULT_KEY_PREFIX
from rag.storage.redis_guard import Breaker, GuardedRedis, RedisUnavailable

logger = logging.getLogger(__name__)

KEYS = "answer:"  # the cache's part of the deployment's keys (rag.storage.keys)

_GET_COUNTING_HITS = (
    "local value = redis.call('get', KEYS[1]) "
    "if value then redis.call('incr', KEYS[2]) end return value"
)
_REMEMBERED_UNREADABLE = 10_000


async def _unless_lost(command: Awaitable[object]) -> bool:
    """Whether a release or renewal of our lock happened; ``False`` when the lock expired or
    another process holds it now (that is no Redis failure: the breaker is not told)."""
    try:
        await command
    except LockError:
        return False
    return True


def _positive(**values: float) -> None:
    for name, value in values.items():
        if not value > 0:
            msg = f"{name} ({value}) must be a positive number of seconds"
            raise ValueError(msg)


class RedisCache:
    """The answer cache over ``redis``, the process's shared guarded client (a bare client gets
    its own policy). Closes it on :meth:`aclose` only when told it owns it."""

    def __init__(
        self,
        redis: GuardedRedis | Redis,
        *,
        policy: CachePolicy | None = None,
        prefix: str | None = None,
        timeout_seconds: float = 0.2,
        lock_seconds: float = 5.0,
        poll_seconds: float = 0.05,
        max_wait_seconds: float = 30.0,
        owns_client: bool = False,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = utc_now,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        heartbeat: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """``sleep``: a waiter's poll; ``heartbeat``: the wait between a held lock's renewals."""
        _positive(timeout_seconds=timeout_seconds, lock_seconds=lock_seconds)
        _positive(poll_seconds=poll_seconds, max_wait_seconds=max_wait_seconds)
        if prefix == "":
            msg = "prefix must not be empty: clear() deletes every key under it"
            raise ValueError(msg)
        self.policy = policy or CachePolicy()
        self.timeout_seconds = timeout_seconds
        self.lock_seconds = lock_seconds
        self.poll_seconds = poll_seconds
        self.max_wait_seconds = max_wait_seconds
        self.redis = redis if isinstance(redis, GuardedRedis) else GuardedRedis(redis)
        self.prefix = f"{self.redis.key_prefix}{KEYS}" if prefix is None else prefix
        self._client = self.redis.client
        self._owns_client = owns_client
        self._clock = clock
        self._now = now
        self._sleep = sleep
        self._heartbeat = heartbeat
        self._flight: SingleFlight[tuple[Result, bool]] = SingleFlight()
        self._unreadable: set[str] = set()

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        connect_timeout_seconds: float = 0.1,
        socket_timeout_seconds: float = 0.1,
        cooldown_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        key_prefix: str = DEFAULT_KEY_PREFIX,
        **options: Any,
    ) -> RedisCache:
        """A cache with a client of its own over ``url`` (tools, tests, benchmarks; its keys
        under ``key_prefix``); a bot process passes its one shared client instead."""
        redis = GuardedRedis.from_url(
            url,
            key_prefix=key_prefix,
            connect_timeout_seconds=connect_timeout_seconds,
            socket_timeout_seconds=socket_timeout_seconds,
            timeout_seconds=options.get("timeout_seconds", 0.2),
            cooldown_seconds=cooldown_seconds,
            clock=clock,
        )
        return cls(redis, owns_client=True, clock=clock, **options)

    @property
    def breaker(self) -> Breaker:
        return self.redis.breaker

    @property
    def location(self) -> str:
        return self.redis.location

    # --- keys -----------------------------------------------------------------------------

    def _value_key(self, key: str) -> str:
        return f"{self.prefix}value:{key}"

    def _lock_key(self, key: str) -> str:
        return f"{self.prefix}lock:{key}"

    def _stat_key(self, name: str) -> str:
        return f"{self.prefix}stats:{name}"

    # --- every Redis call goes through the shared policy, with the cache's own timeout -----

    async def _call(self, command: Callable[[], Awaitable[Any]]) -> Any:
        return await self.redis.run(command, timeout_seconds=self.timeout_seconds)

    async def _quietly(self, command: Callable[[], Awaitable[object]]) -> None:
        """Best effort (counters, stores, releases): skipped during an outage, so a hung Redis
        costs a question one timeout at most; a failure is the breaker's to report."""
        if self.breaker.down:
            return
        with contextlib.suppress(RedisUnavailable):
            await self._call(command)

    # --- the question path ----------------------------------------------------------------

    async def get_or_compute(self, key: str, compute: Compute) -> Result:
        started = time.perf_counter()
        # Identical questions in this process share one lookup, not only one computation: a
        # burst of twenty costs one read and one connection, not twenty at once.
        (result, hit), shared = await self._flight.run(
            key, lambda: self._lookup(key, compute, started)
        )
        if shared:  # counted as each asker's own lookup would have been
            name = "hits" if hit else "shared"
            await self._quietly(lambda: self._client.incr(self._stat_key(name)))
        return result

    async def _lookup(self, key: str, compute: Compute, started: float) -> tuple[Result, bool]:
        """The result, and whether it was stored already; without Redis, computed here."""
        try:
            hit = await self._read(key, started)
            if hit is not None:
                return hit, True
            return await self._wait_or_lead(key, compute, started), False
        except RedisUnavailable:
            return await compute(), False

    async def _read(self, key: str, started: float) -> Result | None:
        """The stored result as a hit (counted in the same round trip), or None."""
        keys = (self._value_key(key), self._stat_key("hits"))
        raw = await self._call(lambda: self._client.eval(_GET_COUNTING_HITS, 2, *keys))
        if raw is None:
            return None
        try:
            result, first_given = decode(raw)
        except CodecError as error:  # damaged JSON and an unknown layout alike
            await self._quietly(lambda: self._client.decr(self._stat_key("hits")))
            if key not in self._unreadable:
                if len(self._unreadable) >= _REMEMBERED_UNREADABLE:
                    self._unreadable.clear()
                self._unreadable.add(key)
                logger.warning("cached value %s is unreadable, recomputing it: %s", key, error)
            return None
        return served_from_cache(result, first_given, started)

    def _lock(self, key: str) -> Lock:
        # redis-py's Lock: SET NX PX with a random token, released and renewed only while the
        # token is still ours. Not blocking: the wait below also watches for the value, so a
        # waiter returns as soon as the holder has stored it, and every call gets the cache's
        # own timeout through the shared breaker. The token lives on the Lock object, not in
        # thread-local storage (one event loop thread runs every question's task).
        return Lock(
            self._client,
            self._lock_key(key),
            timeout=self.lock_seconds,
            sleep=self.poll_seconds,
            blocking=False,
            thread_local=False,
        )

    async def _wait_or_lead(self, key: str, compute: Compute, started: float) -> Result:
        """Take the lock and compute, or wait for whoever holds it; raises RedisUnavailable before
        ``compute`` runs, never after."""
        lock = self._lock(key)
        deadline = self._clock() + self.max_wait_seconds
        while not await self._call(lock.acquire):
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
            renewing = asyncio.create_task(self._keep_lock(lock))
            try:
                return await self._compute_and_store(key, compute)
            finally:
                renewing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await renewing
        finally:
            await self._quietly(lambda: _unless_lost(lock.release()))

    async def _compute_and_store(self, key: str, compute: Compute) -> Result:
        await self._quietly(lambda: self._client.incr(self._stat_key("misses")))
        result = await compute()
        ttl = self.policy.ttl_for(result)
        if ttl is not None:
            value = encode(result, created_at=self._now())
            px = max(1, int(ttl * 1000))
            await self._quietly(lambda: self._client.set(self._value_key(key), value, px=px))
        return result

    async def _keep_lock(self, lock: Lock) -> None:
        """Renew our lock while computing, so only a dead holder's lock expires."""
        while True:
            # Not a retry wait: a heartbeat at a third of the lock's life.
            await self._heartbeat(self.lock_seconds / 3)
            try:
                if not await self._call(lambda: _unless_lost(lock.reacquire())):
                    return
            except RedisUnavailable:
                return

    async def forget(self, key: str) -> Result | None:
        try:
            raw = await self._call(lambda: self._client.getdel(self._value_key(key)))
            return None if raw is None else decode(raw)[0]
        except (RedisUnavailable, CodecError):
            return None  # the withdrawal's mark keeps it from being served all the same

    # --- administration (python -m rag cache ...) --------------------------------------------

    async def stats(self) -> CacheStats:
        """Counters and the stored values' count and memory; raises CacheUnavailable."""
        return await redis_admin.admin(self.location, redis_admin.stats(self._client, self.prefix))

    async def clear(self) -> int:
        """Delete every key under the prefix (values, locks, counters); how many values."""
        return await redis_admin.admin(self.location, redis_admin.clear(self._client, self.prefix))

    async def aclose(self) -> None:
        if self._owns_client:
            await self.redis.aclose()
