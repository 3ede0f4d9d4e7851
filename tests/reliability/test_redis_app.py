"""Redis unreachable at start, killed mid-conversation, back again (and empty): the real app
keeps answering, says it is degraded on /healthz, and never replies twice to one question.

The app runs over a Redis of the test's own with a password, as production would: answer
cache, dedupe, review state and reviewed answers all use it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from bot.slack.review_cards import APPROVE
from rag.search.index import Index
from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.redis_server import OwnRedis
from tests.fakes.slack_api import BOT_USER_ID, FakeSlackApi
from tests.reliability.app import REDIS_PASSWORD, REVIEW_CHANNEL, REVIEWER, Bot, serve
from tests.scenarios.harness import ALICE, CHANNEL, IN_KB, button_click, envelope, mention

QUESTIONS = ("退费怎么算？", "口语课一共有几级？", "How many days of annual leave do I get?")


@pytest.fixture
def stopped_redis() -> OwnRedis:
    return OwnRedis(password=REDIS_PASSWORD)


async def replies_to(bot: Bot, slack: FakeSlackApi, ts: str) -> list[str]:
    """The bot's messages in the thread of ``ts`` once all it was sent has been handled."""
    await bot.idle()
    return [m.text for m in slack.thread(CHANNEL, ts)]


async def ask(bot: Bot, slack: FakeSlackApi, question: str) -> tuple[dict[str, Any], str]:
    """A mention, answered (placeholder replaced): the event and the final text."""
    event = envelope(mention(question))
    assert await bot.send(event) == 200
    [reply] = await replies_to(bot, slack, event["event"]["ts"])
    return event, reply


def twin(event: dict[str, Any]) -> dict[str, Any]:
    """The same mention delivered again as a channel ``message`` (other event id, same ts)."""
    inner = {**event["event"], "type": "message", "channel_type": "channel"}
    return envelope(inner)


async def health(bot: Bot) -> dict[str, Any]:
    status, raw = await bot.get("/healthz")
    assert status == 200
    data: dict[str, Any] = json.loads(raw)
    return data


async def test_answers_keep_coming_while_redis_is_away_dies_and_returns(
    slack_api: FakeSlackApi, docs_index: Index, stopped_redis: OwnRedis
) -> None:
    try:
        async with serve(slack_api, index=docs_index, redis_url=stopped_redis.url) as bot:
            assert "[" in (await ask(bot, slack_api, QUESTIONS[0]))[1]
            assert (await health(bot))["redis"] == "unreachable"
            stopped_redis.start()
            assert "[" in (await ask(bot, slack_api, QUESTIONS[1]))[1]
            assert (await health(bot))["redis"] == "ok"
            stopped_redis.kill()
            assert "[" in (await ask(bot, slack_api, QUESTIONS[2]))[1]
            assert (await health(bot))["status"] == "degraded"
            stopped_redis.start()
            assert "[" in (await ask(bot, slack_api, QUESTIONS[0]))[1]
    finally:
        stopped_redis.kill()


async def test_retries_and_twins_of_an_answered_question_get_no_second_reply_when_redis_blinks(
    slack_api: FakeSlackApi, docs_index: Index, stopped_redis: OwnRedis
) -> None:
    stopped_redis.start()
    try:
        async with serve(slack_api, index=docs_index, redis_url=stopped_redis.url) as bot:
            event, _ = await ask(bot, slack_api, IN_KB)
            ts = event["event"]["ts"]
            stopped_redis.kill()
            assert await bot.send(event, retry_num=1) == 200
            assert await bot.send(twin(event)) == 200
            assert len(await replies_to(bot, slack_api, ts)) == 1
            stopped_redis.start()  # back, and empty
            assert await bot.send(event, retry_num=2) == 200
            assert len(await replies_to(bot, slack_api, ts)) == 1
    finally:
        stopped_redis.kill()
    assert len(slack_api.calls_to("chat.postMessage")) == 1


async def test_twins_arriving_together_while_redis_is_down_get_one_reply(
    slack_api: FakeSlackApi, docs_index: Index, stopped_redis: OwnRedis
) -> None:
    async with serve(slack_api, index=docs_index, redis_url=stopped_redis.url) as bot:
        event = envelope(mention(IN_KB))
        statuses = await asyncio.gather(
            bot.send(event), bot.send(twin(event)), bot.send(event, retry_num=1)
        )
        assert list(statuses) == [200, 200, 200]
        assert len(await replies_to(bot, slack_api, event["event"]["ts"])) == 1
    assert len(slack_api.calls_to("chat.postMessage")) == 1
    assert event["event"]["user"] == ALICE
    assert f"<@{BOT_USER_ID}>" in event["event"]["text"]


async def test_reviewers_racing_while_redis_is_down_send_the_draft_once(
    slack_api: FakeSlackApi, docs_index: Index, stopped_redis: OwnRedis
) -> None:
    model = ScriptedChatModel(replies=["退费要收 99% 的手续费[1]。"])
    stopped_redis.start()
    try:
        async with serve(
            slack_api, index=docs_index, model=model, redis_url=stopped_redis.url
        ) as bot:
            event = envelope(mention(IN_KB))
            assert await bot.send(event) == 200
            await bot.idle()
            [card] = slack_api.in_channel(REVIEW_CHANNEL)
            stopped_redis.kill()
            approve = next(
                element
                for block in card.blocks
                if block["type"] == "actions"
                for element in block["elements"]
                if element.get("action_id") == APPROVE
            )
            clicks = [
                button_click(
                    slack_api,
                    channel=REVIEW_CHANNEL,
                    message_ts=card.ts,
                    button=approve,
                    user=REVIEWER,
                )
                for _ in range(3)
            ]
            statuses = await asyncio.gather(*(bot.click(click) for click in clicks))
            assert list(statuses) == [200, 200, 200]
            await bot.idle()
            assert card.edits >= 1
    finally:
        stopped_redis.kill()
    thread = slack_api.thread(CHANNEL, event["event"]["ts"])
    assert sum("99%" in message.text for message in thread) == 1
    assert card.edits == 1
