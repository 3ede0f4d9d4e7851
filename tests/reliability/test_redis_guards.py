"""Dedupe and the review guard when Redis blinks: never a second reply, never a lost question.

The decision (bot/dedupe.py, bot/review/state.py docstrings): every claim is recorded in this
process *before* Redis is asked, so deliveries that race each other inside one process are
told apart even while Redis fails; Redis arbitrates between processes when it answers. A
question is never dropped because Redis is away (fallback: answer it).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest

from bot.dedupe import Dedupe, event_key, message_key
from bot.review.records import Decision
from bot.review.state import ReviewState
from bot.root.services import redis_client
from rag import GuardedRedis
from tests.fakes.clock import FakeClock
from tests.fakes.redis_server import OwnRedis, free_port

TWIN = (event_key("Ev1"), message_key("C1", "1.0001"))
OTHER_TWIN = (event_key("Ev2"), message_key("C1", "1.0001"))


@pytest.fixture
async def dead_redis(redis_prefix: str) -> AsyncIterator[GuardedRedis]:
    """The production client configuration aimed at a port nobody listens on."""
    client = redis_client(f"redis://127.0.0.1:{free_port()}/0", redis_prefix)
    assert client is not None
    yield client
    await client.aclose()


@pytest.fixture
async def live_redis(own_redis: OwnRedis, redis_prefix: str) -> AsyncIterator[GuardedRedis]:
    client = redis_client(own_redis.url, redis_prefix)
    assert client is not None
    yield client
    await client.aclose()


async def test_twin_deliveries_racing_while_redis_is_down_are_answered_once(
    dead_redis: GuardedRedis,
) -> None:
    dedupe = Dedupe(dead_redis)
    verdicts = await asyncio.gather(dedupe.claim(*TWIN), dedupe.claim(*OTHER_TWIN))
    assert sorted(verdicts) == [False, True]


async def test_a_retry_racing_its_first_delivery_while_redis_is_down_is_answered_once(
    dead_redis: GuardedRedis,
) -> None:
    dedupe = Dedupe(dead_redis)
    verdicts = await asyncio.gather(*(dedupe.claim(*TWIN) for _ in range(4)))
    assert verdicts.count(True) == 1


async def test_unreachable_redis_at_start_still_answers_new_questions_and_logs_it(
    dead_redis: GuardedRedis, caplog: pytest.LogCaptureFixture
) -> None:
    dedupe = Dedupe(dead_redis)
    with caplog.at_level(logging.WARNING, logger="bot.dedupe"):
        assert await dedupe.claim(*TWIN)
        assert await dedupe.claim(event_key("Ev3"), message_key("C1", "1.0003"))
    assert dedupe.fallbacks == 2
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len([w for w in warnings if "unavailable" in w]) == 1  # once per outage


async def test_a_retry_after_redis_restarted_empty_is_not_answered_again(
    own_redis: OwnRedis, live_redis: GuardedRedis
) -> None:
    dedupe = Dedupe(live_redis)
    assert await dedupe.claim(*TWIN)
    own_redis.kill()
    assert not await dedupe.claim(*TWIN)  # Redis down: this process remembers
    own_redis.start()  # back, and empty
    assert not await dedupe.claim(*OTHER_TWIN)
    assert await dedupe.claim(event_key("Ev9"), message_key("C1", "1.0009"))


async def test_dedupe_uses_redis_again_once_it_is_back(
    own_redis: OwnRedis, live_redis: GuardedRedis
) -> None:
    clock = FakeClock(0.0)
    shared = GuardedRedis(live_redis.client, key_prefix=live_redis.key_prefix, clock=clock)
    dedupe = Dedupe(shared)
    own_redis.kill()
    assert await dedupe.claim(event_key("Ev4"), message_key("C1", "1.0004"))
    own_redis.start()
    clock.advance(shared.breaker.cooldown_seconds)  # the breaker lets one call probe Redis again
    assert await dedupe.claim(event_key("Ev5"), message_key("C1", "1.0005"))
    other_process = Dedupe(live_redis)
    assert not await other_process.claim(event_key("Ev5"), message_key("C1", "1.0005"))
    assert dedupe.fallbacks == 1


def decision(reviewer: str) -> Decision:
    return Decision("approved", reviewer, 1_700_000_000.0)


async def test_two_approvals_racing_while_redis_is_down_apply_once(
    dead_redis: GuardedRedis,
) -> None:
    state = ReviewState(dead_redis)
    outcomes = await asyncio.gather(
        state.claim("r1", decision("UALICE")), state.claim("r1", decision("UBOB"))
    )
    # The claims take the review's lock in the order they came (asyncio.Lock is fair): Alice's
    # click is applied, and Bob's learns that Alice decided.
    assert outcomes == [None, decision("UALICE")]


async def test_a_decision_made_before_redis_died_still_wins_while_it_is_down(
    own_redis: OwnRedis, live_redis: GuardedRedis
) -> None:
    state = ReviewState(live_redis)
    assert await state.claim("r2", decision("UALICE")) is None
    own_redis.kill()
    earlier = await state.claim("r2", decision("UBOB"))
    assert earlier == decision("UALICE")


async def test_the_review_guard_loser_learns_the_winner_from_redis(
    live_redis: GuardedRedis,
) -> None:
    one, two = (ReviewState(live_redis) for _ in range(2))
    assert await one.claim("r3", decision("UALICE")) is None
    earlier = await two.claim("r3", decision("UBOB"))
    assert earlier == decision("UALICE")
    assert await two.claim("r3", decision("UCAROL")) == earlier
