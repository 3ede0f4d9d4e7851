"""Knowledge gaps: a refusal's "Ask a human" button brings the question to reviewers, and the
reviewer's answer back to the asker's thread."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.slack_api import FakeSlackApi, Message
from tests.fakes.slack_fixture import slack_api
from tests.redis_area import RedisArea
from tests.scenarios.review_harness import (
    ASK_CHANNEL,
    ASKER,
    OUT_OF_KB,
    OUTSIDER,
    REVIEW_CHANNEL,
    REVIEWER,
    ReviewBot,
    everything,
    text_input,
)

__all__ = ["slack_api"]

ANSWER = "健身房在 B1，工作日 7:00–22:00 开放。"


@pytest.fixture
async def bot(slack_api: FakeSlackApi, redis_area: RedisArea) -> AsyncIterator[ReviewBot]:
    running = ReviewBot(slack_api, redis_area, ScriptedChatModel(replies=["[1]"]))
    await running.start()
    yield running
    await running.close()


def has_action(message: Message, action_id: str) -> bool:
    return any(
        element.get("action_id") == action_id
        for block in message.blocks
        if block.get("type") == "actions"
        for element in block["elements"]
    )


async def refusal_for(slack: FakeSlackApi, bot: ReviewBot) -> tuple[str, Message]:
    asked = await bot.mention(OUT_OF_KB)
    await slack.wait_until(
        lambda: any(has_action(m, "ask_human") for m in slack.thread(ASK_CHANNEL, asked))
    )
    return asked, next(m for m in slack.thread(ASK_CHANNEL, asked) if has_action(m, "ask_human"))


async def gap_card_for(slack: FakeSlackApi, bot: ReviewBot) -> tuple[str, Message]:
    asked, refusal = await refusal_for(slack, bot)
    await bot.click(refusal, "ask_human", user=ASKER)
    [card] = await slack.wait_for_messages(1, channel=REVIEW_CHANNEL)
    await slack.wait_until(lambda: not has_action(refusal, "ask_human"))
    return asked, card


def card_now(slack: FakeSlackApi, card: Message) -> Message:
    return next(m for m in slack.in_channel(REVIEW_CHANNEL) if m.ts == card.ts)


async def test_refusal_offers_a_human_and_the_model_is_not_called(
    slack_api: FakeSlackApi, bot: ReviewBot
) -> None:
    _, refusal = await refusal_for(slack_api, bot)

    assert "资料里没写" in refusal.text
    assert bot.model.calls == 0


async def test_asking_a_human_posts_a_gap_card_and_confirms_to_the_asker(
    slack_api: FakeSlackApi, bot: ReviewBot
) -> None:
    asked, card = await gap_card_for(slack_api, bot)

    shown = everything(card)
    assert OUT_OF_KB in shown
    assert f"<@{ASKER}>" in shown
    assert f"archives/{ASK_CHANNEL}/p{asked.replace('.', '')}" in shown
    assert has_action(card, "gap_answer")
    assert has_action(card, "gap_dismiss")
    refusal = next(m for m in slack_api.thread(ASK_CHANNEL, asked) if "资料里没写" in m.text)
    assert "已转给同事" in everything(refusal)


async def test_a_second_click_on_ask_a_human_does_not_post_a_second_card(
    slack_api: FakeSlackApi, bot: ReviewBot
) -> None:
    _, refusal = await refusal_for(slack_api, bot)
    original = Message(refusal.channel, refusal.ts, refusal.text, list(refusal.blocks))

    await bot.click(original, "ask_human", user=ASKER)
    await slack_api.wait_for_messages(1, channel=REVIEW_CHANNEL)
    await bot.click(original, "ask_human", user=ASKER)

    await slack_api.wait_until(lambda: len(slack_api.ephemerals) == 1)
    assert "已经转给同事" in slack_api.ephemerals[0].text
    assert len(slack_api.in_channel(REVIEW_CHANNEL)) == 1


async def test_reviewer_answer_reaches_the_askers_thread_marked_as_a_colleagues(
    slack_api: FakeSlackApi, bot: ReviewBot
) -> None:
    asked, card = await gap_card_for(slack_api, bot)

    await bot.click(card, "gap_answer", user=REVIEWER)
    await slack_api.wait_until(lambda: len(slack_api.views) == 1)
    await bot.submit(slack_api.views[0], {"text_input": text_input(ANSWER)}, user=REVIEWER)

    await slack_api.wait_until(lambda: card_now(slack_api, card).edits > 0)
    reply = next(m for m in slack_api.thread(ASK_CHANNEL, asked) if "B1" in m.text)
    assert f"<@{REVIEWER}>" in reply.text
    assert "同事" in reply.text
    after = card_now(slack_api, card)
    assert "已由同事回答" in everything(after)
    assert not has_action(after, "gap_answer")


async def test_a_saved_colleague_answer_is_given_next_time_without_the_model(
    slack_api: FakeSlackApi, bot: ReviewBot
) -> None:
    _, card = await gap_card_for(slack_api, bot)
    await bot.click(card, "gap_answer", user=REVIEWER)
    await slack_api.wait_until(lambda: len(slack_api.views) == 1)
    values = {
        "text_input": text_input(ANSWER),
        "save_input": {"value": {"type": "checkboxes", "selected_options": [{"value": "1"}]}},
    }
    await bot.submit(slack_api.views[0], values, user=REVIEWER)
    await slack_api.wait_until(lambda: card_now(slack_api, card).edits > 0)

    again = await bot.mention(OUT_OF_KB)

    await slack_api.wait_until(
        lambda: any("B1" in everything(m) for m in slack_api.thread(ASK_CHANNEL, again))
    )
    reply = next(m for m in slack_api.thread(ASK_CHANNEL, again) if "B1" in everything(m))
    assert f"<@{REVIEWER}>" in everything(reply)
    assert bot.model.calls == 0


async def test_dismiss_closes_the_card_and_only_reviewers_may(
    slack_api: FakeSlackApi, bot: ReviewBot
) -> None:
    asked, card = await gap_card_for(slack_api, bot)
    before = len(slack_api.thread(ASK_CHANNEL, asked))

    await bot.click(card, "gap_dismiss", user=OUTSIDER)
    await slack_api.wait_until(lambda: len(slack_api.ephemerals) == 1)
    assert card_now(slack_api, card).edits == 0
    await bot.click(card, "gap_dismiss", user=REVIEWER)

    await slack_api.wait_until(lambda: card_now(slack_api, card).edits > 0)
    assert "已忽略" in everything(card_now(slack_api, card))
    thread = slack_api.thread(ASK_CHANNEL, asked)
    assert len(thread) == before + 1, "the asker who asked for a person hears that one looked"
    assert "同事看过了这个问题" in thread[-1].text


async def test_home_lists_the_open_gap_for_reviewers_only(
    slack_api: FakeSlackApi, bot: ReviewBot
) -> None:
    await gap_card_for(slack_api, bot)
    await bot.idle()

    await bot.home_opened(REVIEWER)
    await bot.home_opened(OUTSIDER)

    await slack_api.wait_until(lambda: len(slack_api.calls_to("views.publish")) == 2)
    views = {
        call.args["user_id"]: json.dumps(call.args["view"], ensure_ascii=False)
        for call in slack_api.calls_to("views.publish")
    }
    assert OUT_OF_KB in views[REVIEWER]
    assert OUT_OF_KB not in views[OUTSIDER]
