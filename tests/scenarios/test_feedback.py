"""Feedback over signed HTTP: the 👍 / 👎 under every answer, acknowledged and recorded once
per person (a second click changes the vote), one log line per vote."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from redis.asyncio import Redis

from bot.texts import FEEDBACK_THANKS
from tests.fakes.slack_api import FakeSlackApi, Message
from tests.scenarios.harness import (
    ALICE,
    CHANNEL,
    RunningBot,
    bot_env,
    button_click,
    compose,
    envelope,
    mention,
)

BOB = "U0BOB"


def _feedback(message: Message, verdict: str) -> dict[str, Any]:
    [block] = [b for b in message.blocks if b["type"] == "context_actions"]
    [buttons] = block["elements"]
    assert buttons["type"] == "feedback_buttons"
    side = buttons["positive_button" if verdict == "up" else "negative_button"]
    return {
        "type": "feedback_buttons",
        "action_id": buttons["action_id"],
        "value": side["value"],
        "text": side["text"],
    }


async def test_a_feedback_click_is_acknowledged_and_recorded_once_per_person(
    slack_api: FakeSlackApi,
    e5_env: dict[str, str],
    own_redis_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    asked = mention("流利级的课程费是多少？")
    env = bot_env(slack_api, REDIS_URL=own_redis_url, **e5_env)
    async with compose(env) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        await bot.send(envelope(asked))
        await bot.idle()
        [answer] = slack_api.thread(CHANNEL, asked["ts"])
        with caplog.at_level(logging.INFO, logger="citebot.feedback"):
            for user, verdict in ((ALICE, "up"), (BOB, "down"), (ALICE, "down")):
                click = button_click(
                    slack_api,
                    channel=CHANNEL,
                    message_ts=answer.ts,
                    button=_feedback(answer, verdict),
                    user=user,
                )
                assert (await bot.click(click)).status == 200
                await bot.idle()
    assert [(e.user, e.text) for e in slack_api.ephemerals] == [
        (ALICE, FEEDBACK_THANKS["up"]["zh"]),
        (BOB, FEEDBACK_THANKS["down"]["zh"]),
        (ALICE, FEEDBACK_THANKS["down"]["zh"]),
    ]
    redis = Redis.from_url(own_redis_url)
    stored = await redis.hgetall(f"citebot:votes:{CHANNEL}:{answer.ts}")
    await redis.aclose()
    assert stored == {ALICE.encode(): b"down", BOB.encode(): b"down"}
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "citebot.feedback"]
    assert [(line["verdict"], line["up"], line["down"]) for line in lines] == [
        ("up", 1, 0),
        ("down", 1, 1),
        ("down", 0, 2),
    ]
    assert lines[0]["sources"]
    assert lines[0]["sources"][0].startswith("courses.md")
    assert "question" not in lines[0]  # only its hash, unless LOG_QUESTIONS is set
