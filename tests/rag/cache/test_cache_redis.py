"""The Redis answer cache against a real Redis: TTLs, stored values, the cross-process lock."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any
from uuid import uuid4

import pytest
from redis.asyncio import Redis

from rag.cache.answers import CachePolicy
from rag.cache.redis_backend import RedisCache
from rag.results import Result
from tests.rag.cache_fakes import CountingCompute, answer, refusal
from tests.redis_area import RedisArea

KEY = "v1:question"
Factory = Callable[..., RedisCache]


@pytest.fixture
async def raw(redis_area: RedisArea) -> AsyncIterator[Redis]:
    client = redis_area.client()
    yield client
    await client.aclose()


@pytest.fixture
async def make(redis_area: RedisArea) -> AsyncIterator[Factory]:
    """Builds RedisCache instances over the same prefix: each one stands for a bot process."""
    made: list[RedisCache] = []

    def build(**options: Any) -> RedisCache:
        options.setdefault("poll_seconds", 0.01)
        cache = RedisCache.from_url(redis_area.url, key_prefix=redis_area.prefix, **options)
        made.append(cache)
        return cache

    yield build
    for cache in made:
        await cache.aclose()


async def test_refusals_get_the_shorter_ttl_redis_reports(make: Factory, raw: Redis) -> None:
    cache = make(policy=CachePolicy(ttl_seconds=86400, refusal_ttl_seconds=3600))
    await cache.get_or_compute("v1:a", CountingCompute(answer()))
    await cache.get_or_compute("v1:r", CountingCompute(refusal()))
    answer_ms = await raw.pttl(f"{cache.prefix}value:v1:a")
    refusal_ms = await raw.pttl(f"{cache.prefix}value:v1:r")
    assert 86_399_000 < answer_ms <= 86_400_000
    assert 3_599_000 < refusal_ms <= 3_600_000


async def test_value_expires_after_a_short_ttl(make: Factory, raw: Redis) -> None:
    # a second: a loaded machine still makes the second call in it
    cache = make(policy=CachePolicy(ttl_seconds=1.0))
    compute = CountingCompute()
    await cache.get_or_compute(KEY, compute)
    await cache.get_or_compute(KEY, compute)
    assert compute.calls == 1
    for _ in range(100):  # real time: Redis expires the key itself (within about a second)
        if not await raw.exists(f"{cache.prefix}value:{KEY}"):
            break
        await asyncio.sleep(0.05)
    await cache.get_or_compute(KEY, compute)
    assert compute.calls == 2


async def test_stored_value_is_versioned_json_with_citations(make: Factory, raw: Redis) -> None:
    cache = make()
    await cache.get_or_compute(KEY, CountingCompute())
    raw_value = await raw.get(f"{cache.prefix}value:{KEY}")
    assert raw_value is not None
    stored = json.loads(raw_value)
    assert stored["v"] == 1
    assert stored["verdict"] == "answer"
    assert stored["hits"][0]["source"] == "policies/refund.md"
    assert stored["created_at"].endswith("+00:00")


@pytest.mark.parametrize(
    "value",
    [
        b"\xff\xfe not utf-8",
        b"{not json",
        b'{"v": 0, "verdict": "answer"}',
        b'{"v": 1, "verdict": "answer", "question": "q"}',
        b"[1, 2, 3]",
    ],
)
async def test_unreadable_value_is_a_miss_logged_once_and_overwritten(
    make: Factory, raw: Redis, value: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    cache = make()
    await raw.set(f"{cache.prefix}value:{KEY}", value)
    compute = CountingCompute()
    with caplog.at_level(logging.WARNING, logger="rag.cache.redis_backend"):
        first = await cache.get_or_compute(KEY, compute)
        second = await cache.get_or_compute(KEY, compute)
    assert compute.calls == 1
    assert first.provenance.cached_at is None
    assert second.provenance.cached_at is not None
    assert len([r for r in caplog.records if "unreadable" in r.getMessage()]) == 1


async def test_unreadable_value_is_logged_once_per_key_not_per_request(
    make: Factory, raw: Redis, caplog: pytest.LogCaptureFixture
) -> None:
    cache = make()
    await raw.set(f"{cache.prefix}value:{KEY}", b"{broken")
    compute = CountingCompute(result=Exception("model down"))
    with caplog.at_level(logging.WARNING, logger="rag.cache.redis_backend"):
        for _ in range(3):
            with pytest.raises(Exception, match="model down"):
                await cache.get_or_compute(KEY, compute)
    assert compute.calls == 3
    assert len([r for r in caplog.records if "unreadable" in r.getMessage()]) == 1


async def test_twenty_identical_questions_across_two_processes_compute_once(
    make: Factory, raw: Redis
) -> None:
    first, second = make(), make()  # two RedisCache instances share nothing but Redis
    compute = CountingCompute(delay=0.1)
    asks = [(first if i % 2 else second).get_or_compute(KEY, compute) for i in range(20)]
    results = await asyncio.gather(*asks)
    assert compute.calls == 1
    assert {result.text for result in results} == {answer().text}
    assert await raw.exists(f"{first.prefix}lock:{KEY}") == 0  # released when done


async def test_a_long_computation_keeps_its_lock_alive(make: Factory, raw: Redis) -> None:
    """Each heartbeat renews the lock to its full life: only a dead holder's lock expires.
    The heartbeats are the test's to give, so no real time passes."""
    waiting: asyncio.Queue[float] = asyncio.Queue()  # a heartbeat began: the renewal is done
    beats: asyncio.Queue[None] = asyncio.Queue()

    async def heartbeat(seconds: float) -> None:
        waiting.put_nowait(seconds)
        await beats.get()

    holder = make(lock_seconds=60.0, heartbeat=heartbeat)
    lock = f"{holder.prefix}lock:{KEY}"
    computing, finish = asyncio.Event(), asyncio.Event()

    async def long_compute() -> Result:
        computing.set()
        await finish.wait()
        return answer()

    held = asyncio.create_task(holder.get_or_compute(KEY, long_compute))
    await computing.wait()
    assert await waiting.get() == 20.0  # a third of the lock's life
    for _ in range(3):
        await raw.pexpire(lock, 500)  # as if most of the lock's life had passed
        beats.put_nowait(None)
        await waiting.get()  # renewed, and waiting for the next heartbeat
        assert await raw.pttl(lock) > 59_000  # renewed to its full minute
    finish.set()
    assert (await held).text == answer().text
    assert await raw.exists(lock) == 0  # released when done


async def test_a_waiter_takes_over_when_the_holder_died(make: Factory, raw: Redis) -> None:
    cache = make()
    # A process took the lock and died: nobody renews it, it expires on its own.
    await raw.set(f"{cache.prefix}lock:{KEY}", "dead-process", px=200)
    compute = CountingCompute()
    result = await cache.get_or_compute(KEY, compute)
    assert compute.calls == 1
    assert result.provenance.cached_at is None
    assert await raw.exists(f"{cache.prefix}value:{KEY}") == 1


async def test_a_waiter_computes_anyway_after_waiting_too_long(make: Factory, raw: Redis) -> None:
    cache = make(max_wait_seconds=0.05)
    await raw.set(f"{cache.prefix}lock:{KEY}", "stuck-process", px=10_000)
    compute = CountingCompute()
    await cache.get_or_compute(KEY, compute)
    assert compute.calls == 1
    assert await raw.get(f"{cache.prefix}lock:{KEY}") == b"stuck-process"  # not ours to delete


async def test_stats_count_hits_misses_keys_and_memory(make: Factory) -> None:
    cache = make()
    compute = CountingCompute()
    for key in ("v1:a", "v1:a", "v1:a", "v1:b"):
        await cache.get_or_compute(key, compute)
    stats = await cache.stats()
    assert (stats.backend, stats.hits, stats.misses, stats.keys) == ("redis", 2, 2, 2)
    assert stats.memory_bytes is not None
    assert stats.memory_bytes > 0
    assert stats.hit_rate == 0.5


async def test_clear_deletes_only_its_own_prefix(
    make: Factory, raw: Redis, redis_area: RedisArea
) -> None:
    cache = make()
    other = f"{redis_area.prefix}other:{uuid4().hex}"
    await raw.set(other, "keep me", ex=60)
    await cache.get_or_compute("v1:a", CountingCompute())
    await cache.get_or_compute("v1:b", CountingCompute())
    assert await cache.clear() == 2
    assert (await cache.stats()).keys == 0
    assert await raw.get(other) == b"keep me"
    await raw.delete(other)


async def test_prefix_with_glob_characters_is_matched_literally(redis_area: RedisArea) -> None:
    tag, url = redis_area.prefix, redis_area.url
    # Generous timeouts: this is about matching, and a loaded machine must not skip the write.
    slow = {"connect_timeout_seconds": 2.0, "socket_timeout_seconds": 2.0, "timeout_seconds": 2.0}
    star = RedisCache.from_url(url, key_prefix=f"{tag}*:", **slow)
    plain = RedisCache.from_url(url, key_prefix=f"{tag}x:", **slow)
    try:
        await plain.get_or_compute("v1:a", CountingCompute())
        assert (await star.stats()).keys == 0
        assert await star.clear() == 0
        assert await plain.clear() == 1
    finally:
        for cache in (star, plain):
            await cache.aclose()
