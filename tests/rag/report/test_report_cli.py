"""``python -m rag report``: the refused question asked twice is named with its count."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging
import time
from datetime import UTC, datetime, timedelta
from datetime import time as dt_time
from pathlib import Path

import pytest

from rag.cli import main
from rag.feedback.stores import vote_store
from rag.feedback.votes import RedisVotes, VoteRecord, question_key
from rag.report.records import ReviewRecord
from rag.report.store import RecordStore, record_store
from tests.rag.report.records_factory import DAY, asked
from tests.redis_area import RedisArea


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setenv("EMBEDDINGS", "none")
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    return tmp_path / "index"


def keep(store: RecordStore, now: float) -> None:
    async def write() -> None:
        for at in (now - 3600, now - 60):
            await store.add_question(asked("火星上的天气怎么样？", at=at))
        await store.add_question(asked("公司有健身房吗？", at=now - 120))
        await store.add_question(
            asked("退费怎么算？", "answer", at=now - 30, sources=("refund.md",), cached=True)
        )
        await store.add_question(asked("很久以前的问题", at=now - 9 * DAY))
        await store.add_review(
            ReviewRecord(
                at=now, review_id="r", kind="review", verdict="approved", latency_seconds=42
            )
        )

    asyncio.run(write())


def report_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["report", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_json_names_the_refused_question_asked_twice_with_its_count(
    env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fixed clock: noon today (UTC), so the last 7 days span 8 calendar days whatever the
    # hour the test runs at (today's date keeps the records within the store's retention).
    noon = datetime.combine(datetime.now(UTC).date(), dt_time(12), UTC).timestamp()
    monkeypatch.setattr(time, "time", lambda: noon)
    keep(record_store(env, None, retention_days=30), noon)
    report = report_json(capsys)
    top = report["unanswered"][0]  # type: ignore[index]
    assert (top["question"], top["count"]) == ("火星上的天气怎么样？", 2)
    assert report["totals"] == {
        "asked": 4,
        "answered": 1,
        "refused": 3,
        "sent_to_review": 0,
        "from_cache": 1,
        "cache_hit_rate": 0.25,
        "answered_by_reviewers_earlier": 0,
    }
    assert report["documents"]["most_cited"] == [{"source": "refund.md", "citations": 1}]  # type: ignore[index]
    assert report["reviews"]["latency_seconds"]["p50"] == 42  # type: ignore[index]
    days = [day["day"] for day in report["per_day"]]  # type: ignore[attr-defined]
    first = (datetime.fromtimestamp(noon, UTC) - timedelta(days=7)).date()
    assert days == [(first + timedelta(days=n)).isoformat() for n in range(8)]
    narrow = report_json(capsys, "--since", "5m")
    assert narrow["totals"]["asked"] == 3  # type: ignore[index]


def test_text_and_csv_say_the_same(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keep(record_store(env, None, retention_days=30), time.time())
    assert main(["report"]) == 0
    text = capsys.readouterr().out
    assert "2×  火星上的天气怎么样？" in text
    assert "4 asked — 1 answered, 3 refused" in text
    assert main(["report", "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    unanswered = [r for r in rows if r["section"] == "unanswered"]
    assert unanswered[0] == {
        "section": "unanswered",
        "item": "火星上的天气怎么样？",
        "metric": "count",
        "value": "2",
    }


@pytest.fixture
def shared_redis(redis_area: RedisArea, monkeypatch: pytest.MonkeyPatch) -> RedisArea:
    """``rag report`` run with the test's REDIS_URL and REDIS_KEY_PREFIX."""
    for name, value in redis_area.env.items():
        monkeypatch.setenv(name, value)
    return redis_area


def test_with_redis_the_records_come_from_redis_under_its_key_prefix(
    env: Path, shared_redis: RedisArea, capsys: pytest.CaptureFixture[str]
) -> None:
    another_deployment = RedisArea(shared_redis.url, f"{shared_redis.prefix}another:")

    async def write() -> None:
        for area, question in (
            (shared_redis, "火星上的天气怎么样？"),
            (another_deployment, "别处"),
        ):
            redis = area.guarded()
            keep_store = record_store(env, redis, retention_days=30)
            await keep_store.add_question(asked(question, at=time.time() - 5))
            await redis.aclose()

    asyncio.run(write())
    report = report_json(capsys)
    assert report["records"] == f"Redis ({shared_redis.prefix}records:*)"
    assert report["totals"]["refused"] == 1  # type: ignore[index]
    assert [group["question"] for group in report["unanswered"]] == ["火星上的天气怎么样？"]  # type: ignore[attr-defined]


def test_answers_voted_down_in_redis_are_in_the_report_with_their_sources(
    env: Path, shared_redis: RedisArea, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "流利级多少钱？"

    async def vote() -> None:
        client = shared_redis.guarded()
        votes = RedisVotes(client, retention_days=30)
        for user, verdict in (("U1", "down"), ("U2", "down"), ("U3", "up")):
            await votes.cast(
                VoteRecord(
                    at=time.time() - 5,
                    answer="C1:1718000000.000100",
                    user=user,
                    verdict=verdict,
                    note="涨价了" if user == "U1" else "",
                    hash=question_key(question),
                    text=question,
                    sources=("courses.md#2",),
                    index_version="v1",
                )
            )
        await client.aclose()

    asyncio.run(vote())
    feedback = report_json(capsys)["feedback"]
    assert isinstance(feedback, dict)
    assert (feedback["down"], feedback["up"], feedback["answers_down"]) == (2, 1, 1)
    [answer] = feedback["answers"]
    assert answer["question"] == question
    assert answer["sources"] == ["courses.md#2"]
    assert answer["notes"] == ["涨价了"]


def test_without_redis_the_votes_come_from_index_dir(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "退费怎么算？"
    vote = VoteRecord(
        at=time.time() - 5,
        answer="C1:1718000000.000200",
        user="U1",
        verdict="down",
        hash=question_key(question),
        text=question,
        sources=("refund.md#1",),
    )
    asyncio.run(vote_store(None, retention_days=30, index_dir=env).cast(vote))

    feedback = report_json(capsys)["feedback"]
    assert isinstance(feedback, dict)
    assert feedback["down"] == 1
    assert feedback["answers"][0]["sources"] == ["refund.md#1"]


def test_errors_are_one_clear_line(
    env: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert main(["report", "--since", "a week"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "citebot: --since 'a week' is not a period; use a number and a unit: 30m, 24h, 7d or 2w"
    ]
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    with caplog.at_level(logging.DEBUG):
        assert main(["report"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1
    assert error[0].startswith("citebot: cannot read the question records from Redis")
    assert "ConnectionError: " in error[0]  # what failed, not only the guard's exception name
    # nor a second line from the guarded client ("continuing without it": a report doesn't)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
