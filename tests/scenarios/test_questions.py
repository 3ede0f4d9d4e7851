"""Questions over signed HTTP: one threaded reply each, whatever Slack sends twice or throws."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from bot.slack.reply import SOURCE_ACTION_PREFIX
from bot.texts import HELP, QUESTION_CUT, UNVERIFIED, WORKING
from rag.messages import model_failure_text, refusal_text
from rag.pipeline import MAX_QUESTION_CHARS
from rag.search.index import Index
from tests.fakes.slack_api import BOT_ID, BOT_USER_ID, FakeSlackApi, Message
from tests.scenarios.harness import (
    ALICE,
    CHANNEL,
    DM,
    IN_KB,
    IN_KB_EN,
    OUT_OF_KB,
    REVIEW_CHANNEL,
    RunningBot,
    counting,
    direct,
    envelope,
    mention,
    start_bot,
)


def _buttons(message: Message) -> list[dict[str, Any]]:
    return [
        element
        for block in message.blocks
        if block["type"] == "actions"
        for element in block["elements"]
    ]


async def _final(bot: RunningBot, slack: FakeSlackApi) -> list[Message]:
    """The bot's messages once everything sent to it has been handled."""
    await bot.idle()
    return slack.messages


async def test_mention_gets_one_threaded_reply_with_citation_buttons(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    slack_api.without_status()  # the placeholder path, as without thread statuses
    event = mention(IN_KB)
    async with start_bot(slack_api, index=docs_index) as bot:
        response = await bot.send(envelope(event))
        [reply] = await _final(bot, slack_api)
    assert response.status == 200
    assert (reply.channel, reply.thread_ts) == (CHANNEL, event["ts"])
    assert slack_api.calls_to("chat.postMessage")[0].args["text"] == WORKING["zh"]
    assert re.search(r"\[\d+\]", reply.text)
    buttons = _buttons(reply)
    assert buttons
    assert all(str(b["action_id"]).startswith(SOURCE_ACTION_PREFIX) for b in buttons)
    assert str(buttons[0]["text"]["text"]).startswith("[1] ")


async def test_mention_inside_a_thread_is_answered_in_that_thread(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    async with start_bot(slack_api, index=docs_index) as bot:
        await bot.send(envelope(mention(IN_KB, thread_ts="1700000000.000001")))
        [reply] = await _final(bot, slack_api)
    assert reply.thread_ts == "1700000000.000001"


async def test_direct_message_is_answered(slack_api: FakeSlackApi, docs_index: Index) -> None:
    async with start_bot(slack_api, index=docs_index) as bot:
        await bot.send(envelope(direct(IN_KB_EN)))
        [reply] = await _final(bot, slack_api)
    assert reply.channel == DM
    assert reply.thread_ts is None
    assert slack_api.calls_to("chat.postMessage")[0].args["text"] == WORKING["en"]
    assert re.search(r"\[\d+\]", reply.text)


async def test_retries_of_the_same_event_get_one_reply(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    body = envelope(mention(IN_KB))
    async with start_bot(slack_api, index=docs_index) as bot:
        statuses = [(await bot.send(body)).status]
        for retry in (1, 2, 3):
            statuses.append((await bot.send(body, retry_num=retry)).status)
        await _final(bot, slack_api)
    assert statuses == [200, 200, 200, 200]
    assert len(slack_api.calls_to("chat.postMessage")) == 1
    assert len(slack_api.messages) == 1


async def test_app_mention_and_message_twins_get_one_reply(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    twin = mention(IN_KB)
    as_message = {**twin, "type": "message", "channel_type": "channel"}
    async with start_bot(slack_api, index=docs_index) as bot:
        await bot.send(envelope(twin))
        await bot.send(envelope(as_message))
        await _final(bot, slack_api)
    assert len(slack_api.messages) == 1


async def test_other_bots_edits_and_own_echoes_get_no_reply(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    silent = [
        direct(IN_KB, bot_id="B0OTHER"),
        {**direct(IN_KB, subtype="bot_message", bot_id="B0OTHER"), "user": None},
        direct(IN_KB, subtype="message_changed", message={"text": IN_KB, "user": ALICE}),
        direct(IN_KB, subtype="message_deleted"),
        direct(IN_KB, hidden=True),
        {**direct(IN_KB, bot_id=BOT_ID), "user": BOT_USER_ID},
        direct(IN_KB, subtype="channel_join"),
    ]
    async with start_bot(slack_api, index=docs_index) as bot:
        statuses = [(await bot.send(envelope(event))).status for event in silent]
        await bot.idle()
    assert statuses == [200] * len(silent)
    assert slack_api.calls_to("chat.postMessage") == []


async def test_out_of_kb_question_is_refused_without_calling_the_model(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    model = counting()
    async with start_bot(slack_api, index=docs_index, model=model) as bot:
        await bot.send(envelope(mention(OUT_OF_KB)))
        [reply] = await _final(bot, slack_api)
    assert reply.text == refusal_text("zh")
    assert model.calls == 0


async def test_answer_longer_than_3000_characters_is_split_and_nothing_is_lost(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    top = docs_index.search(IN_KB, 5)[0].chunk
    sentence = next(line for line in top.text.splitlines() if len(line.strip()) > 10).strip()
    long_answer = "\n".join(f"{sentence}[1]" for _ in range(3500 // len(sentence) + 40))
    assert len(long_answer) > 3000
    model = counting(GenericFakeChatModel(messages=iter([AIMessage(content=long_answer)])))
    async with start_bot(slack_api, index=docs_index, model=model) as bot:
        await bot.send(envelope(mention(IN_KB)))
        messages = await _final(bot, slack_api)
    assert len(messages) >= 2
    assert all(m.thread_ts == messages[0].thread_ts for m in messages)
    shown = "".join(m.text for m in messages)
    assert shown.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">") == long_answer
    assert _buttons(messages[-1])


async def test_reply_arrives_although_slack_answers_429(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    slack_api.without_status()  # the placeholder path, as without thread statuses
    slack_api.rate_limit("chat.postMessage", times=2, retry_after="1")
    slack_api.rate_limit("chat.update", times=1, retry_after="1")
    async with start_bot(slack_api, index=docs_index) as bot:
        await bot.send(envelope(mention(IN_KB)))
        [reply] = await _final(bot, slack_api)
    assert [c.status for c in slack_api.calls_to("chat.postMessage")] == [429, 429, 200]
    assert [c.status for c in slack_api.calls_to("chat.update")] == [429, 200]
    assert re.search(r"\[\d+\]", reply.text)


async def test_empty_question_gets_short_help(slack_api: FakeSlackApi, docs_index: Index) -> None:
    async with start_bot(slack_api, index=docs_index) as bot:
        await bot.send(envelope(mention("")))
        [reply] = await _final(bot, slack_api)
    assert reply.text.startswith(HELP.split("\n")[0])
    assert slack_api.calls_to("chat.update") == []


async def test_model_failure_replaces_the_placeholder_with_one_sentence(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    model = counting(GenericFakeChatModel(messages=iter([])))
    async with start_bot(slack_api, index=docs_index, model=model) as bot:
        await bot.send(envelope(mention(IN_KB)))
        [reply] = await _final(bot, slack_api)
    assert reply.text == model_failure_text("zh")
    assert "Traceback" not in str(reply.blocks)


async def test_overlong_question_is_cut_and_the_asker_told(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    async with start_bot(slack_api, index=docs_index) as bot:
        await bot.send(envelope(mention(IN_KB + "退" * (MAX_QUESTION_CHARS + 50))))
        [reply] = await _final(bot, slack_api)
    notice = QUESTION_CUT["zh"].format(limit=MAX_QUESTION_CHARS)
    assert notice in str(reply.blocks[0])


async def test_unverified_draft_reaches_the_review_channel_not_the_asker(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    model = counting(
        GenericFakeChatModel(messages=iter([AIMessage(content="口语课一共六级[7]。")]))
    )
    async with start_bot(slack_api, index=docs_index, model=model, with_review=True) as bot:
        event = mention(IN_KB)
        await bot.send(envelope(event))
        await _final(bot, slack_api)
    assert len(slack_api.in_channel(REVIEW_CHANNEL)) == 1
    [note] = slack_api.in_channel(CHANNEL)
    assert note.text == UNVERIFIED["zh"]
    assert note.thread_ts == event["ts"]
    assert "六级" not in note.text
    [card] = slack_api.in_channel(REVIEW_CHANNEL)
    assert "六级" in str(card.blocks)
