"""The weekly digest: never at start-up, then once per week across every process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.digest import WEEK_SECONDS, WeekClaims, WeeklyDigest, digest_text
from bot.settings import BotSettings
from rag import GuardedRedis, SettingsError
from rag.report.records import question_key
from rag.report.summary import build_report
from tests.fakes.clock import FakeClock
from tests.rag.report.records_factory import NOW, asked
from tests.rag.report.test_feedback import Vote
from tests.redis_area import RedisArea


@pytest.fixture
async def redis(redis_area: RedisArea) -> AsyncIterator[GuardedRedis]:
    """The digest's claims under the test's REDIS_KEY_PREFIX: shared by the test's processes
    alone, and gone with the test."""
    client = redis_area.guarded()
    yield client
    await client.aclose()


async def processes(
    claims: list[WeekClaims], clock: FakeClock
) -> tuple[list[WeeklyDigest], list[str]]:
    posted: list[str] = []

    async def compose() -> str:
        return "digest"

    async def post(text: str) -> None:
        posted.append(text)

    return [WeeklyDigest(c, compose, post, clock=clock) for c in claims], posted


@pytest.mark.parametrize("shared", ["redis", "file"])
async def test_posted_once_per_week_across_processes_and_never_at_start(
    shared: str, redis: GuardedRedis, tmp_path: Path
) -> None:
    clock = FakeClock(NOW)
    client = redis if shared == "redis" else None
    digests, posted = await processes([WeekClaims(client, tmp_path) for _ in range(3)], clock)
    for digest in digests:
        assert not await digest.tick()  # start-up: nothing
    clock.now += WEEK_SECONDS - 60
    for digest in digests:
        assert not await digest.tick()
    clock.now += 120  # a week after the first run
    assert [await digest.tick() for digest in digests] == [True, False, False]
    clock.now += 3600
    assert not any([await digest.tick() for digest in digests])
    clock.now += WEEK_SECONDS
    assert sum([await digest.tick() for digest in digests]) == 1
    assert posted == ["digest", "digest"]


async def test_a_process_started_later_keeps_the_first_runs_week(
    redis: GuardedRedis, tmp_path: Path
) -> None:
    clock = FakeClock(NOW)
    [first], posted = await processes([WeekClaims(redis, tmp_path)], clock)
    await first.tick()
    clock.now += WEEK_SECONDS - 10
    [late], _ = await processes([WeekClaims(redis, tmp_path)], clock)
    assert not await late.tick()  # its own start-up is not the first run
    clock.now += 20
    assert await late.tick()
    assert posted == []  # the first process's poster was not the one used


def test_the_text_names_the_top_unanswered_questions_backlog_and_feedback() -> None:
    records = [
        asked("火星上的天气怎么样？"),
        asked("火星上的天气怎么样？"),
        asked("退费？", "answer"),
    ]
    report = build_report(
        records,
        [],
        since=NOW - WEEK_SECONDS,
        until=NOW,
        where="test",
        documents=None,
        embeddings=None,
        votes=[Vote(NOW - 60, "C1:1.1", "U1", "down", question_key("退费？"))],
    )
    text = digest_text(report, backlog=3)
    assert "• 2× 火星上的天气怎么样？" in text
    assert "*Review backlog:* 3 open" in text
    assert "👎 feedback:* 1 on 1 answers" in text


def test_digest_setting_defaults_to_weekly_and_says_what_to_set() -> None:
    assert BotSettings.from_env({}).digest == "weekly"
    assert BotSettings.from_env({"DIGEST": "OFF"}).digest == "off"
    with pytest.raises(SettingsError, match="DIGEST='daily' is not known; use weekly"):
        BotSettings.from_env({"DIGEST": "daily"})
