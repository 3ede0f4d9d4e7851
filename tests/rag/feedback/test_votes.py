"""The vote store: one vote per person per answer, a note that stays with its 👎, bounded, and
readable by the report — in this process and in Redis."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from rag.feedback.files import FileVotes
from rag.feedback.votes import MemoryVotes, RedisVotes, VoteRecord, VoteStore, question_key
from rag.report.records import question_key as report_key
from rag.storage.retained import PRUNE_EVERY_SECONDS
from tests.fakes.clock import FakeClock
from tests.redis_area import RedisArea

QUESTION = "流利级的课程费是多少？"


def _vote(user: str, verdict: str, *, answer: str = "C1:1.1", at: float = 1000.0) -> VoteRecord:
    return VoteRecord.model_validate(
        {
            "at": at,
            "answer": answer,
            "user": user,
            "verdict": verdict,
            "hash": question_key(QUESTION),
            "text": QUESTION,
            "sources": ["courses.md#4"],
            "index_version": "v1",
        }
    )


@pytest.fixture(params=["memory", "file", "redis"])
async def store(
    request: pytest.FixtureRequest, redis_area: RedisArea, tmp_path: Path
) -> AsyncIterator[tuple[VoteStore, FakeClock]]:
    clock = FakeClock(1000.0)
    if request.param == "memory":
        yield MemoryVotes(retention_days=1, max_answers=2, clock=clock), clock
        return
    if request.param == "file":
        yield FileVotes(tmp_path, retention_days=1, clock=clock), clock
        return
    redis = redis_area.guarded()  # the votes' keys under the test's REDIS_KEY_PREFIX
    yield RedisVotes(redis, retention_days=1, max_answers=2, clock=clock), clock
    await redis.aclose()


async def test_a_second_click_replaces_the_person_s_vote(
    store: tuple[VoteStore, FakeClock],
) -> None:
    votes, _ = store
    await votes.cast(_vote("U1", "up"))
    await votes.cast(_vote("U2", "down"))
    now = await votes.cast(_vote("U1", "down", at=1001.0))
    assert sorted((v.user, v.verdict) for v in now) == [("U1", "down"), ("U2", "down")]


async def test_a_note_stays_with_a_repeated_down_vote_and_goes_with_a_change_of_mind(
    store: tuple[VoteStore, FakeClock],
) -> None:
    votes, _ = store
    await votes.cast(_vote("U1", "down"))
    noted = await votes.annotate("C1:1.1", "U1", "  the fee is wrong  ")
    assert noted is not None
    assert [v.note for v in noted] == ["the fee is wrong"]
    [again] = await votes.cast(_vote("U1", "down", at=1002.0))
    assert again.note == "the fee is wrong"
    [changed] = await votes.cast(_vote("U1", "up", at=1003.0))
    assert changed.note == ""
    assert await votes.annotate("C1:1.1", "U1", "too late") is None, "no 👎 to add it to"


async def test_votes_since_and_bounded(store: tuple[VoteStore, FakeClock]) -> None:
    votes, clock = store
    for n, answer in enumerate(("C1:1", "C1:2", "C1:3")):
        clock.now = 1000.0 + n
        await votes.cast(_vote("U1", "down", answer=answer, at=clock.now))
    recent = [v.answer for v in await votes.since(0)]
    if isinstance(votes, FileVotes):  # bounded by the retention alone (pruned hourly)
        assert recent == ["C1:1", "C1:2", "C1:3"]
    else:
        assert recent == ["C1:2", "C1:3"], "at most max_answers answers"
    assert [v.answer for v in await votes.since(1002.0)] == ["C1:3"]
    clock.now += 2 * 86400
    assert await votes.since(0) == [], "nothing outlives the retention"


async def test_processes_without_redis_share_votes_through_the_file(tmp_path: Path) -> None:
    one, two = (FileVotes(tmp_path, retention_days=1) for _ in range(2))
    now = time.time()
    await one.cast(_vote("U1", "down", at=now))
    both = await two.cast(_vote("U2", "down", at=now + 1))
    assert [v.user for v in both] == ["U1", "U2"]
    assert [v.user for v in await one.since(0)] == ["U1", "U2"]
    assert len(await FileVotes(tmp_path, retention_days=1).since(0)) == 2, "rag report's view"


def test_a_vote_joins_the_report_s_question_records_by_key() -> None:
    assert question_key(QUESTION) == report_key(QUESTION)
    assert question_key(" 流利级的课程费是多少? ") == report_key(QUESTION)


async def test_two_processes_voting_at_once_on_one_file_lose_no_vote(tmp_path: Path) -> None:
    """Each write here is an hourly prune (read, rewrite, replace): without the lock, one
    store's rewrite drops the vote the other appended meanwhile."""
    ticks = iter(range(0, 10**9, int(PRUNE_EVERY_SECONDS)))

    def clock() -> float:  # every call is a new hour: every write rewrites the file
        return 1000.0 + next(ticks)

    first, second = (FileVotes(tmp_path, retention_days=365, clock=clock) for _ in range(2))
    users = [f"U{n}" for n in range(40)]
    await asyncio.gather(
        *((first if n % 2 else second).cast(_vote(user, "down")) for n, user in enumerate(users))
    )
    assert sorted(v.user for v in await first.since(0)) == sorted(users)
