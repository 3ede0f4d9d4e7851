"""Document lifecycle over Slack, end to end: the real Bolt app, signed requests, the fake Web
API. A question only a superseded page answers is told so (never answered from it); two
current pages that disagree go to review with both passages side by side; a current answer's
citation carries its document's date."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.slack_api import FakeSlackApi, Message
from tests.fakes.slack_fixture import slack_api
from tests.redis_area import RedisArea
from tests.scenarios.lifecycle_harness import (
    CONFLICT_QUESTION,
    CURRENT_QUESTION,
    INDEX,
    LAPSED_QUESTION,
    THRESHOLD,
)
from tests.scenarios.review_harness import ASK_CHANNEL, REVIEW_CHANNEL, ReviewBot, everything

__all__ = ["slack_api"]


@pytest.fixture
async def bot(slack_api: FakeSlackApi, redis_area: RedisArea) -> AsyncIterator[ReviewBot]:
    # The model would quote whatever it is given: it must never be asked about these.
    model = ScriptedChatModel(replies=["[1]"])
    running = ReviewBot(slack_api, redis_area, model, index=INDEX, threshold=THRESHOLD)
    await running.start()
    yield running
    await running.close()


async def reply_to(slack: FakeSlackApi, asked: str) -> Message:
    def done() -> bool:
        return any("…" not in m.text for m in slack.thread(ASK_CHANNEL, asked))

    await slack.wait_until(done)
    return next(m for m in slack.thread(ASK_CHANNEL, asked) if "…" not in m.text)


async def test_a_question_only_a_superseded_page_answers_is_told_it_is_no_longer_in_force(
    slack_api: FakeSlackApi, bot: ReviewBot
) -> None:
    asked = await bot.mention(LAPSED_QUESTION)
    reply = await reply_to(slack_api, asked)
    await bot.idle()

    assert "通讯补贴标准" in reply.text
    assert "不再有效" in reply.text
    assert "2024-07-01" in reply.text  # since when: the notice's date
    assert "200" not in everything(reply)  # the old amount is never given
    assert bot.model.calls == 0
    assert slack_api.in_channel(REVIEW_CHANNEL) == []


async def test_two_current_pages_that_disagree_go_to_review_side_by_side(
    slack_api: FakeSlackApi, bot: ReviewBot
) -> None:
    asked = await bot.mention(CONFLICT_QUESTION)
    [card] = await slack_api.wait_for_messages(1, channel=REVIEW_CHANNEL)
    await slack_api.wait_until(
        lambda: any("人工复核" in m.text for m in slack_api.thread(ASK_CHANNEL, asked))
    )

    assert not any("14 天" in everything(m) for m in slack_api.thread(ASK_CHANNEL, asked))
    [compared] = [b for b in card.blocks if b.get("block_id") == "compared"]
    left, right = (field["text"] for field in compared["fields"])
    assert {"14 天" in left, "14 天" in right} == {True, False}
    assert {"7 天" in left, "7 天" in right} == {True, False}
    assert "2025-08-12" in left + right
    assert "2024-05-30" in left + right
    shown = everything(card)
    assert "两份现行文件说法不同" in shown  # the conflict problem, naming both
    assert "会议室预订规则" in shown
    assert "行政服务手册" in shown
    assert bot.model.calls == 0


async def test_a_current_answer_cites_the_new_version_with_its_date(
    slack_api: FakeSlackApi, bot: ReviewBot
) -> None:
    bot.model.replies[:] = ["一线城市住宿费每晚上限 600 元[1]。"]
    asked = await bot.mention(CURRENT_QUESTION)
    reply = await reply_to(slack_api, asked)

    assert "600" in reply.text
    labels = [
        element["text"]["text"]
        for block in reply.blocks
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"].startswith("citebot_source_")
    ]
    assert labels
    assert all(label.endswith("2024-12-18") for label in labels)
    assert "2023" not in json.dumps(reply.blocks, ensure_ascii=False)
