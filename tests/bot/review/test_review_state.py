"""Review state: one decision per review whoever clicks; open reviews outlive a restart."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import replace

import pytest
from redis.asyncio import Redis

from bot.review.records import Decision, OpenReview, Ticket, TicketError
from bot.review.state import ReviewState
from bot.slack.limits import BUTTON_VALUE
from rag import question_digest
from rag.storage.redis_guard import GuardedRedis
from tests.redis_area import RedisArea

TICKET = Ticket(
    review_id="r1",
    kind="review",
    channel="C0ASK",
    thread_ts="1718000000.000100",
    asker="UASKER",
    message_ts="1718000000.000100",
    created=1718000000.5,
    sources=(("courses/levels.md#0", "ab" * 16, 0.8123), ("policies/refund.md#2", "cd" * 16, 0.4)),
)


@pytest.fixture
async def make_state(redis_area: RedisArea) -> AsyncIterator[Callable[[], ReviewState]]:
    """New ``ReviewState`` instances (as separate processes would have) over one key prefix."""
    states: list[ReviewState] = []

    def make() -> ReviewState:
        states.append(ReviewState(redis_area.guarded(), owns_client=True))
        return states[-1]

    yield make
    for state in states:
        await state.aclose()


def decision(reviewer: str, verdict: str = "approved") -> Decision:
    return Decision(verdict, reviewer, 1718000100.0)  # type: ignore[arg-type]


async def test_concurrent_claims_let_exactly_one_win(make_state: Callable[[], ReviewState]) -> None:
    states = [make_state() for _ in range(4)]

    outcomes = await asyncio.gather(
        *(state.claim("r1", decision(f"U{i}")) for i, state in enumerate(states * 3))
    )

    winners = [outcome for outcome in outcomes if outcome is None]
    assert len(winners) == 1
    losers = {outcome for outcome in outcomes if outcome is not None}
    assert len(losers) == 1
    assert next(iter(losers)).reviewer.startswith("U")


async def test_loser_learns_who_decided_and_when(make_state: Callable[[], ReviewState]) -> None:
    first, second = make_state(), make_state()
    assert await first.claim("r1", decision("UALICE")) is None

    lost = await second.claim("r1", decision("UBOB", "rejected"))

    assert lost == decision("UALICE")
    assert await second.decision("r1") == decision("UALICE")


async def test_released_claim_can_be_made_again(make_state: Callable[[], ReviewState]) -> None:
    state = make_state()
    assert await state.claim("r1", decision("UALICE")) is None

    await state.release("r1")

    assert await state.claim("r1", decision("UBOB")) is None


async def test_duplicate_click_is_still_caught_after_a_redis_flush(
    make_state: Callable[[], ReviewState], redis_area: RedisArea
) -> None:
    state = make_state()
    assert await state.claim("r1", decision("UALICE")) is None
    redis_area.clear()

    assert await state.claim("r1", decision("UALICE")) == decision("UALICE")


async def test_open_reviews_outlive_a_restart_and_leave_when_closed(
    make_state: Callable[[], ReviewState],
) -> None:
    later = replace(TICKET, review_id="r2", created=TICKET.created + 5)
    before = make_state()
    await before.open(OpenReview(later, "退费怎么算？"))
    await before.open(OpenReview(TICKET, "口语课有几级？", draft="六级[1]", card_ts="1.2"))

    after = make_state()

    assert [review.ticket.review_id for review in await after.pending()] == ["r1", "r2"]
    assert (await after.get("r1")) == OpenReview(TICKET, "口语课有几级？", "六级[1]", card_ts="1.2")
    await after.close("r1")
    assert [review.ticket.review_id for review in await make_state().pending()] == ["r2"]


async def test_without_redis_the_process_itself_is_exactly_once() -> None:
    state = ReviewState()
    outcomes = await asyncio.gather(*(state.claim("r1", decision(f"U{i}")) for i in range(5)))

    assert outcomes.count(None) == 1
    await state.open(OpenReview(TICKET, "q"))
    assert [review.ticket for review in await state.pending()] == [TICKET]


async def test_unreachable_redis_falls_back_to_this_process() -> None:
    state = ReviewState(GuardedRedis(Redis.from_url("redis://127.0.0.1:1/0")), owns_client=True)

    assert await state.claim("r1", decision("UALICE")) is None
    assert await state.claim("r1", decision("UBOB")) == decision("UALICE")
    await state.open(OpenReview(TICKET, "q"))
    assert len(await state.pending()) == 1
    await state.aclose()


def test_ticket_round_trips_through_a_button_value() -> None:
    assert Ticket.from_value(TICKET.to_value(BUTTON_VALUE)) == TICKET


def test_ticket_value_stays_within_slacks_limit_by_dropping_trailing_sources() -> None:
    many = tuple((f"很长的目录/很长的文件名-{i:03d}.md#{i}", "ef" * 16, 0.5) for i in range(60))
    ticket = replace(TICKET, sources=many)

    value = ticket.to_value(BUTTON_VALUE)

    assert len(value) <= BUTTON_VALUE
    kept = Ticket.from_value(value).sources
    assert 0 < len(kept) < len(many)
    assert kept == many[: len(kept)]


def test_a_long_question_is_shortened_after_the_sources_are_gone() -> None:
    """An "Ask a human" ticket carries the question: over the limit, its end goes (the card
    shows it whole) and it still reads back as this review's ticket."""
    question = "退费规则是什么？" * 400
    digest = question_digest(question, TICKET.scope)
    ticket = replace(TICKET, sources=TICKET.sources[:3], question=question, digest=digest)

    value = ticket.to_value(500)

    assert len(value) <= 500
    back = Ticket.from_value(value)
    assert back.review_id == TICKET.review_id
    assert back.sources == ()
    assert ticket.question.startswith(back.question)
    assert len(back.question) > 50
    assert back.digest == digest, "what the reviewer's answer is filed under, never cut"


def test_a_ticket_without_a_digest_is_read_and_written_as_before() -> None:
    """Cards posted before tickets carried the digest still work; empty fields stay out."""
    value = TICKET.to_value(BUTTON_VALUE)
    assert '"d"' not in value
    assert Ticket.from_value(value).digest == ""


def test_a_limit_too_small_for_a_bare_ticket_is_a_ticket_error() -> None:
    with pytest.raises(TicketError, match="even when bare"):
        TICKET.to_value(20)


@pytest.mark.parametrize("value", ["", "42", "{}", json.dumps({"v": 2, "k": "review"})])
def test_foreign_button_values_are_rejected_clearly(value: str) -> None:
    with pytest.raises(TicketError):
        Ticket.from_value(value)


async def test_this_process_forgets_its_oldest_decisions_beyond_its_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("bot.review.state.MAX_LOCAL", 3)
    state = ReviewState()
    for n in range(5):
        assert await state.claim(f"r{n}", decision("UALICE")) is None

    assert await state.decision("r0") is None
    assert await state.decision("r4") == decision("UALICE")
