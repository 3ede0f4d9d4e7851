"""Where reviewed answers, rejections and withdrawals are kept: a four-method :class:`Store`.

:class:`RedisStore` over the process's shared :class:`GuardedRedis` (every process sees the
same decisions; raises RedisUnavailable, which the callers turn into "nothing stored"), and
:class:`MemoryStore` in one process when REDIS_URL is unset.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Protocol

from cachetools import TLRUCache
from redis.asyncio import Redis

from rag.storage.redis_guard import GuardedRedis


class Store(Protocol):
    async def get(self, key: str) -> str | None: ...
    async def set(self, key: str, value: str, *, ttl_seconds: int | None) -> None: ...
    async def delete(self, key: str) -> None: ...
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

    async def delete(self, key: str) -> None:
        self._values.pop(key, None)

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

    async def delete(self, key: str) -> None:
        await self._redis.run(lambda: self._redis.client.delete(key))

    async def aclose(self) -> None:
        if self._owns_client:
            await self._redis.aclose()
