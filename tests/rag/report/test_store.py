"""Records in Redis and in a file under INDEX_DIR: kept, read back, and gone after retention."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from rag.report.records import ReviewRecord
from rag.report.store import FileRecords, RecordStore, RedisRecords
from tests.fakes.clock import FakeClock
from tests.rag.report.records_factory import DAY, NOW, asked
from tests.redis_area import RedisArea


@pytest.fixture
async def redis(redis_area: RedisArea) -> AsyncIterator[tuple[Redis, str]]:
    client = redis_area.client()
    yield client, f"{redis_area.prefix}records:"
    await client.aclose()


def stores(tmp_path: Path, redis: tuple[Redis, str], clock: FakeClock) -> list[RecordStore]:
    client, prefix = redis
    return [
        FileRecords(tmp_path, retention_days=2, clock=clock),
        RedisRecords(client, retention_days=2, prefix=prefix, clock=clock),
    ]


async def test_records_are_read_back_in_both_stores_identical_ones_counted_twice(
    tmp_path: Path, redis: tuple[Redis, str]
) -> None:
    clock = FakeClock(NOW)
    for store in stores(tmp_path, redis, clock):
        await store.add_question(asked("火星上的天气怎么样？", at=NOW - 10))
        await store.add_question(asked("火星上的天气怎么样？", at=NOW - 10))
        await store.add_review(
            ReviewRecord(at=NOW, review_id="r1", kind="review", verdict="approved")
        )
        questions = await store.questions(since=NOW - DAY)
        assert [q.text for q in questions] == ["火星上的天气怎么样？"] * 2, store.where
        assert [r.verdict for r in await store.reviews(since=0)] == ["approved"]


async def test_nothing_older_than_the_retention_is_kept(
    tmp_path: Path, redis: tuple[Redis, str]
) -> None:
    clock = FakeClock(NOW)
    for store in stores(tmp_path, redis, clock):
        await store.add_question(asked("old", at=NOW - 3 * DAY))
        await store.add_question(asked("recent", at=NOW - DAY))
        assert [q.text for q in await store.questions(since=0)] == ["recent"], store.where
    client, prefix = redis
    assert await client.zcard(f"{prefix}questions") == 1  # dropped, not only hidden
    assert 0 < await client.ttl(f"{prefix}questions") <= 2 * DAY
    lines = (tmp_path / "records" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1


async def test_a_damaged_line_is_skipped_not_fatal(tmp_path: Path) -> None:
    store = FileRecords(tmp_path, retention_days=30, clock=FakeClock(NOW))
    await store.add_question(asked("第一个", at=NOW - 5))
    with (tmp_path / "records" / "questions.jsonl").open("a", encoding="utf-8") as file:
        file.write('{"at": "broken\n')
    await store.add_question(asked("第二个", at=NOW - 1))
    assert [q.text for q in await store.questions(since=0)] == ["第一个", "第二个"]


async def test_processes_appending_at_once_lose_nothing(tmp_path: Path) -> None:
    writers = [FileRecords(tmp_path, retention_days=30, clock=FakeClock(NOW)) for _ in range(4)]
    await asyncio.gather(
        *(
            w.add_question(asked(f"q{i}-{n}", at=NOW - 1))
            for n in range(25)
            for i, w in enumerate(writers)
        )
    )
    assert len(await writers[0].questions(since=0)) == 100
