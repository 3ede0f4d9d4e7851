"""The weekly digest and the question records with their Redis killed: one warning for the
outage, no traceback, however many checks and writes it lasts (README: one warning per outage).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from bot.digest import CHECK_SECONDS, WEEK_SECONDS, WeekClaims, WeeklyDigest, weekly_report
from bot.records import Background
from bot.review.state import ReviewState
from rag.feedback.stores import vote_store
from rag.report.store import record_store
from rag.storage.redis_guard import GuardedRedis
from tests.fakes.clock import FakeClock
from tests.fakes.redis_server import OwnRedis
from tests.rag.report.records_factory import NOW, asked


def problems(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]


async def test_a_dead_redis_is_one_warning_for_the_digest_and_the_records(
    own_redis: OwnRedis, tmp_path: Path, caplog: pytest.LogCaptureFixture, redis_prefix: str
) -> None:
    clock = FakeClock(NOW)
    redis = GuardedRedis.from_url(
        own_redis.url, key_prefix=redis_prefix, cooldown_seconds=5.0, clock=clock
    )
    records = Background(record_store(tmp_path, redis, retention_days=30))
    votes = vote_store(redis, retention_days=30)
    posted: list[str] = []

    async def post(text: str) -> None:
        posted.append(text)

    checks = 0

    async def sleep(seconds: float) -> None:
        nonlocal checks
        assert seconds == CHECK_SECONDS
        clock.now += seconds  # past the breaker's cooldown: every check probes Redis again
        records.start(records.store.add_question(asked("火星上的天气怎么样？", at=clock.now)))
        await asyncio.sleep(0)
        checks += 1
        if checks == 12:
            raise asyncio.CancelledError  # two hours of checks: enough

    compose = weekly_report(records.store, ReviewState(redis), votes)
    digest = WeeklyDigest(WeekClaims(redis, tmp_path), compose, post, clock=clock, sleep=sleep)
    try:
        assert not await digest.tick()  # start-up with Redis up: the first run is remembered
        own_redis.kill()
        clock.now += WEEK_SECONDS  # the first digest is due, and its claim needs Redis
        with caplog.at_level(logging.DEBUG), pytest.raises(asyncio.CancelledError):
            await digest.run()
        await records.drain()
    finally:
        await redis.aclose()

    assert posted == []  # no week claimed without the shared claim: no duplicate digests later
    assert redis.breaker.outages == 1
    [warning] = problems(caplog)
    assert warning.getMessage().startswith(f"Redis at {redis.location} unavailable")
    assert warning.exc_info is None
    assert "Traceback" not in caplog.text
