"""Two deployments on one Redis database, told apart by REDIS_KEY_PREFIX alone (staging beside
production): neither sees the other's dedupe, cache or question records, and every key either
writes is under its own prefix."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bot.texts import CACHED
from rag.cli import main
from tests.fakes.slack_api import FakeSlackApi
from tests.redis_area import RedisArea
from tests.scenarios.harness import CHANNEL, RunningBot, bot_env, compose, envelope, mention

QUESTION = "流利级的课程费是多少？"
CACHED_MARK = CACHED["zh"].split("{")[0]


def cached(text_and_blocks: str) -> bool:
    return CACHED_MARK in text_and_blocks


async def test_two_deployments_on_one_redis_see_nothing_of_each_others(
    slack_api: FakeSlackApi,
    e5_env: dict[str, str],
    redis_area: RedisArea,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    staging = RedisArea(redis_area.url, f"{redis_area.prefix}staging:")
    production = RedisArea(redis_area.url, f"{redis_area.prefix}production:")
    delivered = envelope(mention(QUESTION))  # one event, delivered to both apps
    again = mention(QUESTION)
    async with (
        compose(bot_env(slack_api, **staging.env, **e5_env)) as one,
        compose(bot_env(slack_api, **production.env, **e5_env)) as other,
    ):
        first, second = (RunningBot(s.url, s.http, s.handled) for s in (one, other))
        for bot in (first, second):
            assert (await bot.send(delivered)).status == 200
            await bot.idle()
        assert (await first.send(envelope(again))).status == 200
        await first.idle()

    replies = slack_api.thread(CHANNEL, delivered["event"]["ts"])
    # Shared dedupe keys would have taken the second delivery for a retry: one reply only.
    assert len(replies) == 2
    # A shared cache would have served the second deployment the first one's answer.
    assert [
        cached(reply.text + json.dumps(reply.blocks, ensure_ascii=False)) for reply in replies
    ] == [False, False]
    [repeated] = slack_api.thread(CHANNEL, again["ts"])
    assert cached(
        repeated.text + json.dumps(repeated.blocks, ensure_ascii=False)
    )  # the cache is in Redis

    for area, asked in ((staging, 2), (production, 1)):  # each report, its own questions
        for name, value in {**area.env, "INDEX_DIR": str(tmp_path), "EMBEDDINGS": "none"}.items():
            monkeypatch.setenv(name, value)
        assert await asyncio.to_thread(main, ["report", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["totals"]["asked"] == asked

    staging_keys = {key.decode() for key in staging.written_keys()}
    production_keys = {key.decode() for key in production.written_keys()}
    assert set(map(bytes.decode, redis_area.written_keys())) == staging_keys | production_keys
    for area, keys in ((staging, staging_keys), (production, production_keys)):
        kinds = {key.removeprefix(area.prefix).split(":")[0] for key in keys}
        assert {"answer", "dedupe", "records"} <= kinds
