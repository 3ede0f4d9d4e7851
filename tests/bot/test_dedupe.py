"""One question, one reply: retries and app_mention+message twins are recognised."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bot.dedupe import Dedupe, event_key, message_key
from rag.storage.redis_guard import GuardedRedis
from tests.fakes.clock import FakeClock
from tests.redis_area import RedisArea


@pytest.fixture
async def redis(redis_area: RedisArea) -> AsyncIterator[Redis]:
    client = redis_area.client()
    yield client
    await client.aclose()


@pytest.fixture
def prefix(redis_area: RedisArea) -> str:
    return f"{redis_area.prefix}dedupe:"


@pytest.fixture
def shared(redis: Redis, redis_area: RedisArea) -> tuple[Dedupe, Dedupe]:
    """Two processes' deduplicators over one Redis (keys under the test's REDIS_KEY_PREFIX).
    Each call may take up to 5 s (the bot's budget is 0.2 s): on a busy machine one slow
    reply opened the breaker, both sides fell back to their own memory and both won, which
    is not what these tests are about."""
    one, two = (
        Dedupe(GuardedRedis(redis, key_prefix=redis_area.prefix, timeout_seconds=5.0))
        for _ in range(2)
    )
    return one, two


def _unreachable_redis() -> Redis:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return Redis(
        host="127.0.0.1",
        port=port,
        socket_connect_timeout=0.2,
        socket_timeout=0.2,
        retry=Retry(NoBackoff(), 0),
    )


async def test_a_retried_event_is_claimed_once_across_processes(
    shared: tuple[Dedupe, Dedupe],
) -> None:
    one, two = shared
    keys = (event_key("Ev1"), message_key("C1", "1.0001"))
    assert await one.claim(*keys)
    assert not await two.claim(*keys)
    assert not await one.claim(*keys)


async def test_app_mention_and_message_twins_get_one_reply(shared: tuple[Dedupe, Dedupe]) -> None:
    one, two = shared
    assert await one.claim(event_key("EvMention"), message_key("C1", "1.0002"))
    assert not await two.claim(event_key("EvMessage"), message_key("C1", "1.0002"))


async def test_concurrent_deliveries_have_exactly_one_winner(
    shared: tuple[Dedupe, Dedupe],
) -> None:
    one, two = shared
    keys = (event_key("Ev9"), message_key("C1", "1.0009"))
    results = await asyncio.gather(*(d.claim(*keys) for d in (one, two, one, two)))
    assert results.count(True) == 1


async def test_without_redis_the_process_remembers_and_forgets_after_the_ttl() -> None:
    clock = FakeClock(0.0)
    dedupe = Dedupe(None, ttl_seconds=60, clock=clock)
    assert await dedupe.claim(event_key("Ev1"))
    assert not await dedupe.claim(event_key("Ev1"))
    clock.now = 61.0
    assert await dedupe.claim(event_key("Ev1"))


async def test_redis_down_falls_back_to_memory_and_never_duplicates_in_process() -> None:
    redis = _unreachable_redis()
    try:
        dedupe = Dedupe(GuardedRedis(redis))
        assert await dedupe.claim(event_key("Ev1"), message_key("C1", "1.0001"))
        assert not await dedupe.claim(event_key("Ev1"), message_key("C1", "1.0001"))
        assert not await dedupe.claim(event_key("Ev2"), message_key("C1", "1.0001"))
        assert dedupe.fallbacks == 1
    finally:
        await redis.aclose()


async def test_a_claim_made_through_redis_still_counts_when_redis_then_fails(
    redis: Redis, prefix: str
) -> None:
    dedupe = Dedupe(GuardedRedis(redis), prefix=prefix)
    assert await dedupe.claim(event_key("Ev1"))
    dedupe.redis = GuardedRedis(_unreachable_redis())
    try:
        assert not await dedupe.claim(event_key("Ev1"))
    finally:
        await dedupe.redis.aclose()


def test_invalid_ttl_is_rejected_with_the_value() -> None:
    with pytest.raises(ValueError, match=r"ttl_seconds \(0\)"):
        Dedupe(None, ttl_seconds=0)


async def test_racing_deliveries_in_two_processes_never_all_lose(
    shared: tuple[Dedupe, Dedupe],
) -> None:
    """Claimed key by key, a retry racing its original could win one key each: nobody answers."""
    one, two = shared
    for n in range(50):
        keys = (event_key(f"Ev{n}"), message_key("C1", f"2.{n:04d}"))
        results = await asyncio.gather(*(d.claim(*keys) for d in (one, two, one, two)))
        assert results.count(True) == 1, n


async def test_concurrent_claims_in_one_process_have_one_winner_while_redis_is_down() -> None:
    redis = _unreachable_redis()
    try:
        dedupe = Dedupe(GuardedRedis(redis))
        keys = (event_key("Ev1"), message_key("C1", "1.0001"))
        results = await asyncio.gather(*(dedupe.claim(*keys) for _ in range(5)))
        assert results.count(True) == 1
    finally:
        await redis.aclose()
