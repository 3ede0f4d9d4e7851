"""A sick Redis never fails a question: answers still come, fast, and the cache comes back.

These tests run their own ``redis-server`` so they can kill, restart and slow it down.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio import Redis

from rag.cache.redis_backend import RedisCache
from rag.results import Result
from tests.fakes.clock import FakeClock
from tests.fakes.redis_server import OwnRedis, free_port
from tests.rag.cache_fakes import CountingCompute, answer

KEY = "v1:question"


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    server = OwnRedis(debug=True)
    server.start()
    yield server
    server.kill()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def cache(
    own_redis: OwnRedis, clock: FakeClock, redis_prefix: str
) -> AsyncIterator[RedisCache]:
    cache = RedisCache.from_url(
        own_redis.url, key_prefix=redis_prefix, clock=clock, cooldown_seconds=5
    )
    yield cache
    await cache.aclose()


def warnings_in(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


async def timed(cache: RedisCache, compute: CountingCompute) -> float:
    started = time.perf_counter()
    await cache.get_or_compute(KEY, compute)
    return time.perf_counter() - started


async def test_answers_come_while_redis_is_killed_and_the_cache_resumes_after_restart(
    own_redis: OwnRedis, cache: RedisCache, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    compute = CountingCompute()
    await cache.get_or_compute(KEY, compute)
    await cache.get_or_compute(KEY, compute)
    assert compute.calls == 1  # cached while up

    own_redis.kill()
    with caplog.at_level(logging.INFO, logger="rag.storage.redis_guard"):
        first_failure = await timed(cache, compute)
        skipped = [await timed(cache, compute) for _ in range(5)]
        clock.advance(6)  # the breaker probes again: still down, still quiet
        probe = await timed(cache, compute)
        assert compute.calls == 8  # every question answered, without the cache
        assert len(warnings_in(caplog)) == 1  # one outage, one warning
        assert first_failure < 0.3
        assert probe < 0.3
        assert max(skipped) < 0.01  # the breaker skips Redis: no connect attempt at all

        own_redis.start()  # same port, empty (no persistence)
        clock.advance(6)
        await cache.get_or_compute(KEY, compute)  # miss: recomputed and stored again
        again = await cache.get_or_compute(KEY, compute)
    assert compute.calls == 9
    assert again.provenance.cached_at is not None
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.INFO] == [
        f"{cache.breaker.name} available again"
    ]
    assert len(warnings_in(caplog)) == 1


async def test_a_client_pointed_at_a_closed_port_answers_everything_quickly(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    cache = RedisCache.from_url(f"redis://127.0.0.1:{free_port()}/0", clock=clock)
    compute = CountingCompute()
    with caplog.at_level(logging.WARNING):
        started = time.perf_counter()
        for _ in range(10):
            await cache.get_or_compute(KEY, compute)
        elapsed = time.perf_counter() - started
    await cache.aclose()
    assert compute.calls == 10
    assert elapsed < 0.5
    assert len(warnings_in(caplog)) == 1
    assert "continuing without it" in warnings_in(caplog)[0]


async def test_a_slow_redis_times_out_within_the_socket_timeout(
    own_redis: OwnRedis, cache: RedisCache, caplog: pytest.LogCaptureFixture
) -> None:
    admin = Redis.from_url(own_redis.url)
    await admin.ping()
    stalling = admin.execute_command("DEBUG", "SLEEP", "0.6")  # type: ignore[no-untyped-call]
    stall = asyncio.create_task(stalling)
    await asyncio.sleep(0.05)  # let the server start stalling
    compute = CountingCompute()
    with caplog.at_level(logging.WARNING, logger="rag.storage.redis_guard"):
        elapsed = await timed(cache, compute)
    await stall
    await admin.aclose()
    assert compute.calls == 1
    assert elapsed < 0.4  # bounded by the cache's timeout, not by the stalled server
    assert len(warnings_in(caplog)) == 1


async def test_redis_replying_errors_does_not_fail_the_question(
    own_redis: OwnRedis, cache: RedisCache, clock: FakeClock
) -> None:
    admin = Redis.from_url(own_redis.url)
    await admin.config_set("maxmemory", "1")  # every write now fails with OOM
    await admin.config_set("maxmemory-policy", "noeviction")
    compute = CountingCompute()
    result = await cache.get_or_compute(KEY, compute)
    assert result.provenance.cached_at is None
    assert cache.breaker.down
    await admin.config_set("maxmemory", "0")
    await admin.aclose()
    clock.advance(6)
    await cache.get_or_compute(KEY, compute)
    hit = await cache.get_or_compute(KEY, compute)
    assert compute.calls == 2
    assert hit.provenance.cached_at is not None
    assert not cache.breaker.down


async def test_redis_hanging_mid_question_costs_that_question_one_timeout_at_most(
    own_redis: OwnRedis, cache: RedisCache, caplog: pytest.LogCaptureFixture
) -> None:
    admin = Redis.from_url(own_redis.url)
    await admin.ping()
    stalls: list[asyncio.Task[object]] = []

    async def compute_while_redis_stalls() -> Result:
        # Redis stops answering while the model works: storing the answer will time out.
        stalling = admin.execute_command("DEBUG", "SLEEP", "0.7")  # type: ignore[no-untyped-call]
        stalls.append(asyncio.create_task(stalling))
        await asyncio.sleep(0.05)
        return answer()

    started = time.perf_counter()
    with caplog.at_level(logging.DEBUG, logger="rag.storage.redis_guard"):
        result = await cache.get_or_compute(KEY, compute_while_redis_stalls)
    elapsed = time.perf_counter() - started
    await stalls[0]
    await admin.aclose()
    assert result.verdict == "answer"
    assert cache.breaker.down
    # the store times out once; releasing the lock is then skipped, not a second timeout
    assert [r.getMessage() for r in caplog.records if "still unavailable" in r.getMessage()] == []
    assert elapsed < 0.05 + cache.timeout_seconds + 0.1
