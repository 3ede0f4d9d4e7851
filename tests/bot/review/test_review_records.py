"""Review records: versioned, validated round-trips, and what an upgrade finds in Redis.

The ``LEGACY_*`` strings are byte for byte what the desk wrote before records were versioned
(hand-written ``json.dumps``): a review open during an upgrade must survive it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from bot.review.records import Decision, OpenReview, RecordError, Ticket
from bot.review.state import ReviewState
from bot.slack.limits import BUTTON_VALUE
from rag.problems import Problem
from tests.redis_area import RedisArea

TICKET = Ticket(
    review_id="r1",
    kind="review",
    channel="C0ASK",
    thread_ts="1718000000.000100",
    asker="UASKER",
    message_ts="1718000000.000100",
    created=1718000000.5,
    sources=(("courses/levels.md#0", "ab" * 16, 0.8123),),
)
PROBLEM = Problem(
    "ungrounded_number",
    "数字「六级」在所引资料 [1] 里找不到，也不是回答中算式的结果",
    "口语课一共六级[1]。",
    refs=(1,),
    note="回答说「六级」，所引资料 [1] 写的是「四个级别」",
)
LEGACY_TICKET = (
    '{"v":1,"r":"r1","k":"review","c":"C0ASK","t":"1718000000.000100","u":"UASKER",'
    '"m":"1718000000.000100","s":"all","a":1718000000.5,'
    '"h":[["courses/levels.md#0","abababababababababababababababab",0.8123]]}'
)
LEGACY_OPEN = (
    '{"ticket":' + json.dumps(LEGACY_TICKET) + ',"question":"口语课有几级？",'
    '"draft":"口语课一共六级[1]。","card_channel":"CREVIEW","card_ts":"1718000001.000200",'
    '"permalink":"https://x.slack.com/archives/CREVIEW/p1718000001000200","problems":[]}'
)
LEGACY_DECISION = '{"verdict":"approved","reviewer":"UREVIEWER","at":1718000100.25,"reason":""}'


@pytest.fixture
async def state(redis_area: RedisArea) -> AsyncIterator[tuple[ReviewState, Redis, str]]:
    client = redis_area.client()
    review_state = ReviewState(redis_area.guarded(), owns_client=True)
    yield review_state, client, f"{redis_area.prefix}review:"
    await client.aclose()
    await review_state.aclose()


def test_an_open_review_round_trips_with_its_problems() -> None:
    review = OpenReview(
        TICKET, "口语课有几级？", "口语课一共六级[1]。", "CREVIEW", "1.2", "", (PROBLEM,)
    )

    assert OpenReview.from_json(review.to_json()) == review
    assert '"v":2' in review.to_json()


def test_a_ticket_is_written_in_the_layout_cards_already_carry() -> None:
    assert TICKET.to_value(BUTTON_VALUE) == LEGACY_TICKET
    assert Ticket.from_value(LEGACY_TICKET) == TICKET


def test_a_decision_round_trips_and_one_stored_before_versions_still_reads() -> None:
    decision = Decision("rejected", "UREVIEWER", 1718000100.25, "编的")

    assert Decision.from_json(decision.to_json()) == decision
    assert Decision.from_json(LEGACY_DECISION) == Decision("approved", "UREVIEWER", 1718000100.25)


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        ('{"v":2,"verdict":"approved","reviewer":"U","at":1.0}', "decision.v"),
        ('{"verdict":"maybe","reviewer":"U","at":1.0}', "decision.verdict"),
        ('{"verdict":"approved","reviewer":"U","at":"soon"}', "decision.at"),
    ],
)
def test_an_unreadable_decision_is_refused_naming_the_field(raw: str, named: str) -> None:
    with pytest.raises(RecordError, match=named):
        Decision.from_json(raw)


async def test_reviews_open_during_an_upgrade_are_still_listed_and_decidable(
    state: tuple[ReviewState, Redis, str],
) -> None:
    review_state, client, prefix = state
    await client.hset(f"{prefix}open", "r1", LEGACY_OPEN)  # type: ignore[misc]
    await client.set(f"{prefix}decided:r0", LEGACY_DECISION)

    [review] = await review_state.pending()

    assert review == OpenReview(
        TICKET,
        "口语课有几级？",
        "口语课一共六级[1]。",
        "CREVIEW",
        "1718000001.000200",
        "https://x.slack.com/archives/CREVIEW/p1718000001000200",
    )
    assert await review_state.get("r1") == review
    earlier = Decision("approved", "UREVIEWER", 1718000100.25)
    assert await review_state.claim("r0", Decision("rejected", "UOTHER", 2e9)) == earlier


async def test_a_damaged_open_review_is_left_out_with_one_warning(
    state: tuple[ReviewState, Redis, str], caplog: pytest.LogCaptureFixture
) -> None:
    review_state, client, prefix = state
    await review_state.open(OpenReview(TICKET, "口语课有几级？", problems=(PROBLEM,)))
    await client.hset(f"{prefix}open", "bad1", '{"v":2,"ticket":{}}')  # type: ignore[misc]
    await client.hset(f"{prefix}open", "bad2", "not json")  # type: ignore[misc]

    with caplog.at_level(logging.WARNING, logger="bot.review.state"):
        first = await review_state.pending()
        second = await review_state.pending()

    assert [review.problems for review in first] == [(PROBLEM,)]
    assert second == first
    assert await review_state.get("bad1") is None
    [warning] = [r for r in caplog.records if r.name == "bot.review.state"]
    assert "cannot read" in warning.getMessage()


async def test_a_decision_that_cannot_be_read_is_never_decided_over(
    state: tuple[ReviewState, Redis, str],
) -> None:
    review_state, client, prefix = state
    await client.set(f"{prefix}decided:r1", '{"v":9,"verdict":"approved"}')

    with pytest.raises(RecordError):
        await review_state.claim("r1", Decision("approved", "UREVIEWER", 1.0))
    assert await client.get(f"{prefix}decided:r1") == b'{"v":9,"verdict":"approved"}'
