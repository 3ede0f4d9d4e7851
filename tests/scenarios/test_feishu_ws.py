"""FEISHU_MODE=ws: the same answers over the long connection, on the bot's own event loop."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import AsyncIterator

import pytest

from rag.search.index import Index
from tests.fakes.feishu_api import FakeFeishuApi
from tests.redis_area import RedisArea
from tests.scenarios.feishu_harness import DM, FeishuBot, buttons, start_feishu, value_of
from tests.scenarios.harness import IN_KB_EN


@pytest.fixture
async def feishu() -> AsyncIterator[FakeFeishuApi]:
    async with FakeFeishuApi() as fake:
        yield fake


@pytest.fixture
async def bot(
    feishu: FakeFeishuApi, docs_index: Index, redis_area: RedisArea
) -> AsyncIterator[FeishuBot]:
    async with start_feishu(feishu, index=docs_index, redis=redis_area, mode="ws") as running:
        yield running


def _question(bot: FeishuBot, text: str) -> tuple[object, dict[str, object]]:
    message = bot.feishu.user_message(DM, "ou_alice000001", {"text": text})
    return message, bot.events.message(message, chat_type="p2p")


async def test_a_question_over_the_long_connection_is_answered(
    bot: FeishuBot, feishu: FakeFeishuApi
) -> None:
    message, event = _question(bot, IN_KB_EN)
    answer_frame = await feishu.link.push(event)
    assert json.loads(answer_frame.payload) == {"code": 200}
    [answer] = await bot.replies(message)  # type: ignore[arg-type]
    assert re.search(r"\[\d+\]", answer.text)
    assert feishu.link.pings()  # the bot keeps the connection alive
    assert all(call.endpoint != "unknown" for call in feishu.calls)


async def test_a_split_payload_is_put_together(bot: FeishuBot, feishu: FakeFeishuApi) -> None:
    message, event = _question(bot, IN_KB_EN)
    await feishu.link.push(event, parts=3)
    [answer] = await bot.replies(message)  # type: ignore[arg-type]
    assert re.search(r"\[\d+\]", answer.text)


async def test_a_card_click_is_answered_in_the_frame(bot: FeishuBot, feishu: FakeFeishuApi) -> None:
    message, event = _question(bot, IN_KB_EN)
    await feishu.link.push(event)
    [answer] = await bot.replies(message)  # type: ignore[arg-type]
    value = value_of(next(b for b in buttons(answer) if value_of(b)["k"] == "source"))
    click = bot.events.card_action(
        operator="ou_bob00000001", message_id=answer.message_id, chat_id=DM, value=value
    )
    frame = await feishu.link.push(click, kind="card")
    reply = json.loads(frame.payload)
    assert reply["code"] == 200
    toast = json.loads(base64.b64decode(reply["data"]))["toast"]["content"]
    assert toast.startswith("Source [1]")


async def test_a_dropped_connection_is_reopened(bot: FeishuBot, feishu: FakeFeishuApi) -> None:
    await feishu.link.wait_until(lambda: feishu.link.connections == 1)
    await feishu.link.drop()
    await feishu.link.wait_until(lambda: feishu.link.connections == 2)
    message, event = _question(bot, IN_KB_EN)
    await feishu.link.push(event)
    [answer] = await bot.replies(message)  # type: ignore[arg-type]
    assert re.search(r"\[\d+\]", answer.text)
