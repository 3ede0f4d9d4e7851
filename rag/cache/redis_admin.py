"""What ``python -m rag cache stats|clear`` asks of the Redis answer cache.

Operators wait longer than a question's lookup would, so these calls go to the client
directly (its own socket timeouts bound them), not through the breaker, and a failure is one
clear :class:`~rag.cache.answers.CacheUnavailable` instead of a skipped call.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from typing import TypeVar

from redis.asyncio import Redis

from rag.cache.answers import CacheStats, CacheUnavailable
from rag.storage.redis_guard import REDIS_FAILURES, describe

T = TypeVar("T")

STAT_NAMES = ("hits", "misses", "shared")
_BATCH = 500


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


async def admin(location: str, awaitable: Awaitable[T]) -> T:
    """``awaitable``'s value; a sick Redis becomes one CacheUnavailable that says where."""
    try:
        return await awaitable
    except REDIS_FAILURES as error:
        msg = f"Redis at {location} cannot be reached: {describe(error)}"
        raise CacheUnavailable(msg) from error


async def _scan(client: Redis, pattern: str) -> list[bytes]:
    return [name async for name in client.scan_iter(match=pattern, count=_BATCH)]


async def stats(client: Redis, prefix: str) -> CacheStats:
    """The counters under ``{prefix}stats:`` and the stored values' count and memory."""
    counts = await client.mget([f"{prefix}stats:{name}" for name in STAT_NAMES])
    hits, misses, shared = (int(count or 0) for count in counts)
    keys = await _scan(client, glob_escape(f"{prefix}value:") + "*")
    memory = 0
    for start in range(0, len(keys), _BATCH):
        pipe = client.pipeline(transaction=False)
        for name in keys[start : start + _BATCH]:
            pipe.memory_usage(name)
        memory += sum(int(used or 0) for used in await pipe.execute())
    return CacheStats("redis", hits, misses, shared, len(keys), memory)


async def clear(client: Redis, prefix: str) -> int:
    """Delete every key under ``prefix`` (values, locks, counters); how many were values."""
    every = await _scan(client, glob_escape(prefix) + "*")
    values = f"{prefix}value:".encode()
    for start in range(0, len(every), _BATCH):
        await client.unlink(*every[start : start + _BATCH])
    return sum(1 for name in every if name.startswith(values))
