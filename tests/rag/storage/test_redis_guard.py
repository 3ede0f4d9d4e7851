"""The breaker in front of Redis: skip while down, one probe per cooldown, one warning."""

from __future__ import annotations

import logging

import pytest

from rag.cache.redis_backend import RedisCache
from rag.storage.redis_guard import Breaker, GuardedRedis
from tests.fakes.clock import FakeClock


def test_after_a_failure_callers_skip_until_the_cooldown_then_one_probes() -> None:
    clock = FakeClock()
    breaker = Breaker("redis", cooldown_seconds=5, clock=clock)
    assert breaker.allows()
    breaker.failed(ConnectionError("refused"))
    assert not breaker.allows()
    clock.advance(5)
    assert breaker.allows()  # this caller probes
    assert not breaker.allows()  # the others keep skipping meanwhile
    breaker.succeeded()
    assert breaker.allows()
    assert not breaker.down


def test_one_warning_per_outage_and_one_info_when_back(caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock()
    breaker = Breaker("redis", cooldown_seconds=5, clock=clock)
    with caplog.at_level(logging.INFO, logger="rag.storage.redis_guard"):
        for _ in range(2):  # two outages
            for _ in range(10):
                breaker.failed(TimeoutError("Timeout reading from 127.0.0.1:6379"))
                clock.advance(6)
            breaker.succeeded()
            breaker.succeeded()
    levels = [record.levelname for record in caplog.records]
    assert levels == ["WARNING", "INFO", "WARNING", "INFO"]
    assert "TimeoutError: Timeout reading" in caplog.records[0].getMessage()
    assert breaker.outages == 2


def test_negative_cooldown_is_refused_with_the_value() -> None:
    with pytest.raises(ValueError, match=r"cooldown_seconds \(-1\)"):
        Breaker("redis", cooldown_seconds=-1)


async def test_the_key_prefix_travels_with_the_client_and_may_not_be_empty() -> None:
    client = GuardedRedis.from_url("redis://127.0.0.1:1/0", key_prefix="citebot-staging:")
    assert client.key_prefix == "citebot-staging:"
    assert RedisCache(client).prefix == "citebot-staging:answer:"  # each store's part after it
    await client.aclose()
    for bad in ("", "a b"):
        with pytest.raises(ValueError, match=r"key_prefix \("):
            GuardedRedis.from_url("redis://127.0.0.1:1/0", key_prefix=bad)
