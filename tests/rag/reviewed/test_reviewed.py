"""Reviewed answers: served again until a cited source changes; rejected drafts remembered."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from redis.asyncio import Redis

from rag.chunks import Chunk
from rag.questions import normalize_question
from rag.results import Hit
from rag.reviewed.answers import (
    MemoryStore,
    RedisStore,
    ReviewedAnswers,
    sources_of,
)
from rag.storage.redis_guard import GuardedRedis
from tests.fakes.clock import FakeClock
from tests.redis_area import RedisArea

AT = datetime(2026, 12, 3, 9, 30, tzinfo=UTC)
LEVELS = Chunk("courses/levels.md", "口语课共分四个级别，每个级别 16 课时。", 0, ("课程级别",))
REFUND = Chunk("policies/refund.md", "退费时收取退款金额 5% 的手续费。", 2, ("退费政策",))
HR = Chunk("hr/leave.md", "Full-time employees receive 20 days of paid leave.", 0, ("Leave",))


class FakeIndex:
    def __init__(self, *chunks: Chunk) -> None:
        self.chunks = {chunk.id: chunk for chunk in chunks}

    def chunk(self, chunk_id: str) -> Chunk | None:
        return self.chunks.get(chunk_id)


HITS = (Hit(LEVELS, 0.81, rank=1), Hit(REFUND, 0.55, rank=2), Hit(HR, 0.2, rank=3))


@pytest.fixture(params=["memory", "redis"])
async def reviewed(
    request: pytest.FixtureRequest, redis_area: RedisArea
) -> AsyncIterator[ReviewedAnswers]:
    if request.param == "memory":
        store = ReviewedAnswers(MemoryStore())
        yield store
        await store.aclose()
        return
    redis = redis_area.guarded()
    store = ReviewedAnswers.over(redis)  # its keys under the test's REDIS_KEY_PREFIX
    yield store
    await store.aclose()
    await redis.aclose()


async def approve(reviewed: ReviewedAnswers, text: str, question: str = "口语课有几级？") -> None:
    stored = await reviewed.approve(
        question, scope="all", text=text, sources=sources_of(HITS), reviewer="UREV", at=AT
    )
    assert stored


async def test_approved_answer_is_served_with_who_reviewed_it_and_when(
    reviewed: ReviewedAnswers,
) -> None:
    await approve(reviewed, "口语课共四级[1]。")

    answer = await reviewed.lookup(
        "口语课有几级？", scope="all", index=FakeIndex(LEVELS, REFUND, HR)
    )

    assert answer is not None
    assert answer.text == "口语课共四级[1]。"
    assert [hit.chunk.id for hit in answer.hits] == [LEVELS.id, REFUND.id, HR.id]
    assert answer.hits[0].score == pytest.approx(0.81)
    assert answer.provenance.reviewed_by == "UREV"
    assert answer.provenance.reviewed_at == AT


async def test_lookup_matches_the_normalised_question_within_its_scope(
    reviewed: ReviewedAnswers,
) -> None:
    await approve(reviewed, "口语课共四级[1]。")
    index = FakeIndex(LEVELS, REFUND, HR)

    assert await reviewed.lookup("  口语课有几级 ", scope="all", index=index) is not None
    assert await reviewed.lookup("口语课有几级？", scope="hr", index=index) is None
    assert await reviewed.lookup("退费怎么算？", scope="all", index=index) is None


async def test_answer_is_dropped_when_a_cited_source_changes_or_vanishes(
    reviewed: ReviewedAnswers,
) -> None:
    await approve(reviewed, "口语课共四级[1]，手续费 5%[2]。")
    changed = replace(REFUND, text="退费时收取退款金额 8% 的手续费。")

    assert await reviewed.lookup("口语课有几级？", scope="all", index=FakeIndex(LEVELS, HR)) is None
    changed_index = FakeIndex(LEVELS, changed, HR)
    assert await reviewed.lookup("口语课有几级？", scope="all", index=changed_index) is None


async def test_a_change_in_an_uncited_source_keeps_the_answer(reviewed: ReviewedAnswers) -> None:
    await approve(reviewed, "口语课共四级[1]。")
    changed = replace(HR, text="Full-time employees receive 25 days of paid leave.")

    answer = await reviewed.lookup(
        "口语课有几级？", scope="all", index=FakeIndex(LEVELS, REFUND, changed)
    )

    assert answer is not None
    assert answer.hits[2].chunk.text == changed.text


async def test_rejected_draft_is_recognised_and_other_drafts_are_not(
    reviewed: ReviewedAnswers,
) -> None:
    stored = await reviewed.reject(
        "口语课有几级？", scope="all", draft="口语课一共六级[1]。", reviewer="UREV", at=AT
    )

    assert stored
    assert await reviewed.is_rejected("口语课有几级", scope="all", draft="口语课一共六级[1]。\n")
    assert not await reviewed.is_rejected("口语课有几级？", scope="all", draft="口语课共四级[1]。")
    assert not await reviewed.is_rejected("口语课有几级？", scope="hr", draft="口语课一共六级[1]。")


async def test_unreachable_redis_means_nothing_reviewed_not_an_error() -> None:
    reviewed = ReviewedAnswers(
        RedisStore(Redis.from_url("redis://127.0.0.1:1/0"), owns_client=True)
    )
    index = FakeIndex(LEVELS)

    assert await reviewed.lookup("口语课有几级？", scope="all", index=index) is None
    assert not await reviewed.is_rejected("口语课有几级？", scope="all", draft="x")
    assert not await reviewed.approve(
        "口语课有几级？", scope="all", text="四级[1]", sources=(), reviewer="U", at=AT
    )
    await reviewed.aclose()


async def test_records_of_another_format_version_are_ignored() -> None:
    store = MemoryStore()
    reviewed = ReviewedAnswers(store)
    await approve(reviewed, "口语课共四级[1]。")
    key = next(iter(store._values))
    await store.set(key, '{"v": 999, "text": "x"}', ttl_seconds=None)

    assert await reviewed.lookup("口语课有几级？", scope="all", index=FakeIndex(LEVELS)) is None


async def test_answer_expires_after_its_ttl() -> None:
    clock = FakeClock(1000.0)
    reviewed = ReviewedAnswers(MemoryStore(clock=clock), ttl_seconds=60)
    await approve(reviewed, "口语课共四级[1]。")
    index = FakeIndex(LEVELS, REFUND, HR)
    assert await reviewed.lookup("口语课有几级？", scope="all", index=index) is not None

    clock.advance(61)

    assert await reviewed.lookup("口语课有几级？", scope="all", index=index) is None


async def test_empty_reviewed_text_is_refused_at_once() -> None:
    reviewed = ReviewedAnswers(MemoryStore())
    with pytest.raises(ValueError, match="empty"):
        await reviewed.approve("q", scope="all", text="  ", sources=(), reviewer="U", at=AT)


async def test_a_shared_redis_client_is_left_open_for_its_owner(redis_area: RedisArea) -> None:
    client = redis_area.client()
    reviewed = ReviewedAnswers(RedisStore(client), prefix=f"{redis_area.prefix}reviewed:")

    await reviewed.aclose()

    assert await client.ping()
    await client.aclose()


def test_invalid_ttl_names_the_setting_and_value() -> None:
    with pytest.raises(ValueError, match=r"rejection_ttl_seconds \(0\)"):
        ReviewedAnswers(MemoryStore(), rejection_ttl_seconds=0)


def test_question_normalisation_ignores_width_case_space_and_final_punctuation() -> None:
    assert normalize_question("  Annual   LEAVE？ ") == normalize_question("annual leave?")


async def test_an_open_breaker_on_the_shared_client_skips_redis_without_waiting() -> None:
    clock = FakeClock(0.0)
    shared = GuardedRedis.from_url("redis://127.0.0.1:1/0", clock=clock)
    reviewed = ReviewedAnswers(RedisStore(shared, owns_client=True))
    assert not await reviewed.is_rejected("q", scope="all", draft="d")  # fails: breaker opens
    assert shared.breaker.down
    calls: list[str] = []
    shared.client.get = lambda *args, **kwargs: calls.append("get")  # type: ignore[method-assign]
    assert await reviewed.lookup("q", scope="all", index=FakeIndex()) is None
    assert calls == []  # skipped for the cooldown, not tried and timed out
    await reviewed.aclose()
