"""Document lifecycle over Feishu, end to end: encrypted, signed events into the real app, the
fake Open API watching. The same knowledge base as the Slack scenarios
(:mod:`tests.scenarios.lifecycle_harness`)."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.feishu_api import FakeFeishuApi
from tests.redis_area import RedisArea
from tests.scenarios.feishu_harness import (
    REVIEW_CHAT,
    FeishuBot,
    buttons,
    start_feishu,
    value_of,
)
from tests.scenarios.lifecycle_harness import (
    CONFLICT_QUESTION,
    CURRENT_QUESTION,
    INDEX,
    LAPSED_QUESTION,
    THRESHOLD,
)


@pytest.fixture
def model() -> ScriptedChatModel:
    return ScriptedChatModel(replies=["一线城市住宿费每晚上限 600 元[1]。"])


@pytest.fixture
async def bot(
    feishu: FakeFeishuApi, redis_area: RedisArea, model: ScriptedChatModel
) -> AsyncIterator[FeishuBot]:
    async with start_feishu(
        feishu, index=INDEX, redis=redis_area, model=model, min_score=THRESHOLD
    ) as running:
        yield running


def columns(card: dict[str, Any]) -> list[str]:
    """The texts of each column of the card's column sets, one string per column."""
    found: list[str] = []
    for element in card.get("body", {}).get("elements", []):
        if element.get("tag") == "column_set":
            found += [json.dumps(c, ensure_ascii=False) for c in element["columns"]]
    return found


async def test_a_question_only_a_superseded_page_answers_is_told_it_is_no_longer_in_force(
    bot: FeishuBot, feishu: FakeFeishuApi, model: ScriptedChatModel
) -> None:
    question, _ = await bot.ask_group(LAPSED_QUESTION)
    [reply] = await bot.replies(question)

    assert "通讯补贴标准" in reply.text
    assert "不再有效" in reply.text
    assert "2024-07-01" in reply.text
    # the lapsed page's amount, as a number of its own (message ids are digits too)
    assert not re.search(r"(?<!\d)200(?!\d)", json.dumps(reply.content, ensure_ascii=False))
    assert model.calls == 0
    assert feishu.in_chat(REVIEW_CHAT) == []


async def test_two_current_pages_that_disagree_go_to_review_side_by_side(
    bot: FeishuBot, feishu: FakeFeishuApi, model: ScriptedChatModel
) -> None:
    question, _ = await bot.ask_group(CONFLICT_QUESTION)
    [note] = await bot.replies(question)
    await feishu.wait_until(lambda: len(feishu.in_chat(REVIEW_CHAT)) == 1)
    [card] = feishu.in_chat(REVIEW_CHAT)

    assert "人工复核" in note.text
    assert "14 天" not in note.text
    left, right = columns(card.content)
    assert {"14 天" in left, "14 天" in right} == {True, False}
    assert {"7 天" in left, "7 天" in right} == {True, False}
    assert "2025-08-12" in left + right
    assert "2024-05-30" in left + right
    assert "两份现行文件说法不同" in card.text
    assert model.calls == 0


async def test_a_current_answer_cites_the_new_version_with_its_date(bot: FeishuBot) -> None:
    question, _ = await bot.ask_group(CURRENT_QUESTION)
    [answer] = await bot.replies(question)

    assert "600" in answer.text
    sources = [b for b in buttons(answer) if value_of(b)["k"] == "source"]
    assert sources
    assert all(b["text"]["content"].endswith("2024-12-18") for b in sources)
