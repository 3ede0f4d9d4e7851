"""Conversations over signed HTTP: thread follow-ups without a mention, DMs read in context,
the thread's status while an answer is prepared — with the real embedder on docs/.

docs/courses.md: 流利级 4800 元, 商务级 5600 元. ``那商务级呢？`` alone retrieves the list of
levels; read after ``流利级的课程费是多少？`` it is ``商务级的课程费是多少？``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bot.texts import STATUS, WORKING
from rag.search.index import Index
from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.slack_api import BOT_ID, BOT_USER_ID, FakeSlackApi
from tests.redis_area import RedisArea
from tests.scenarios.harness import (
    ALICE,
    CHANNEL,
    DM,
    REVIEW_CHANNEL,
    RunningBot,
    bot_env,
    compose,
    direct,
    envelope,
    hashing_pipeline,
    mention,
    new_ts,
)

FIRST = "流利级的课程费是多少？"
FOLLOW_UP = "那商务级呢？"
BOB = "U0BOB"


def in_thread(text: str, thread_ts: str, *, user: str = ALICE, **extra: Any) -> dict[str, Any]:
    """A channel message in a thread, as ``message.channels`` delivers it."""
    ts = new_ts()
    return {
        "type": "message",
        "channel_type": "channel",
        "user": user,
        "text": text,
        "ts": ts,
        "thread_ts": thread_ts,
        "parent_user_id": ALICE,
        "channel": CHANNEL,
        "event_ts": ts,
        **extra,
    }


async def _asked(bot: RunningBot, *events: dict[str, Any]) -> None:
    for event in events:
        assert (await bot.send(envelope(event))).status == 200
        await bot.idle()


async def test_a_thread_follow_up_without_a_mention_is_answered_in_the_thread(
    slack_api: FakeSlackApi, e5_env: dict[str, str]
) -> None:
    first = mention(FIRST)
    async with compose(bot_env(slack_api, **e5_env)) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        await _asked(bot, first, in_thread(FOLLOW_UP, first["ts"]))
    answer, follow_up = slack_api.thread(CHANNEL, first["ts"])
    assert "4800" in answer.text
    assert "5600" in follow_up.text
    assert follow_up.thread_ts == first["ts"]
    assert re.search(r"\[\d+\]", follow_up.text)


async def test_messages_that_are_not_follow_ups_get_no_reply(
    slack_api: FakeSlackApi, e5_env: dict[str, str]
) -> None:
    first = mention(FIRST)
    elsewhere = mention("口语课一共有几级？")
    quiet = [
        in_thread("谢谢！", first["ts"]),  # small talk
        in_thread("ok 👍 :tada:", first["ts"]),
        in_thread(f"<@{BOB}> 那商务级呢？", first["ts"]),  # a person asking a person
        in_thread(FOLLOW_UP, first["ts"], bot_id="B0OTHER"),  # another bot
        in_thread(FOLLOW_UP, first["ts"], user=BOT_USER_ID, bot_id=BOT_ID),  # our own echo
        in_thread(FOLLOW_UP, first["ts"], subtype="message_changed"),  # an edit
        in_thread(FOLLOW_UP, first["ts"], subtype="message_deleted"),
        in_thread(FOLLOW_UP, "1600000000.000001"),  # a thread the bot never answered
        {**in_thread(FOLLOW_UP, first["ts"]), "thread_ts": None},  # top level, no mention
    ]
    async with compose(bot_env(slack_api, **e5_env)) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        await _asked(bot, first, elsewhere)
        before = len(slack_api.messages)
        await _asked(bot, *quiet)
    assert len(slack_api.messages) == before
    assert not slack_api.ephemerals


async def test_follow_ups_off_leaves_threads_to_people_and_mentions_still_work(
    slack_api: FakeSlackApi, e5_env: dict[str, str]
) -> None:
    first = mention(FIRST)
    async with compose(bot_env(slack_api, FOLLOW_UPS="off", **e5_env)) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        await _asked(bot, first, in_thread(FOLLOW_UP, first["ts"]))
        assert len(slack_api.thread(CHANNEL, first["ts"])) == 1
        await _asked(bot, mention(FOLLOW_UP, thread_ts=first["ts"]))
    _, mentioned = slack_api.thread(CHANNEL, first["ts"])
    assert "5600" in mentioned.text  # a mention in the thread is still read in context


async def test_a_follow_up_that_also_mentions_the_bot_is_answered_once(
    slack_api: FakeSlackApi, e5_env: dict[str, str]
) -> None:
    first = mention(FIRST)
    twin_ts = new_ts()
    as_mention = mention(FOLLOW_UP, ts=twin_ts, thread_ts=first["ts"])
    as_message = in_thread(f"<@{BOT_USER_ID}> {FOLLOW_UP}", first["ts"])
    as_message.update(ts=twin_ts, event_ts=twin_ts)
    mention_body = envelope(as_mention)
    async with compose(bot_env(slack_api, **e5_env)) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        await _asked(bot, first)
        await bot.send(envelope(as_message))
        await bot.send(mention_body)
        await bot.send(mention_body, retry_num=1)
        await bot.idle()
    _, follow_up = slack_api.thread(CHANNEL, first["ts"])
    assert "5600" in follow_up.text


async def test_a_dm_follow_up_is_read_in_the_context_of_the_recent_exchange(
    slack_api: FakeSlackApi, e5_env: dict[str, str]
) -> None:
    async with compose(bot_env(slack_api, **e5_env)) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        await _asked(bot, direct(FIRST), direct(FOLLOW_UP))
    answer, follow_up = slack_api.in_channel(DM)
    assert "4800" in answer.text
    assert "5600" in follow_up.text


async def test_conversations_are_shared_by_processes_through_redis(
    slack_api: FakeSlackApi, e5_env: dict[str, str], redis_area: RedisArea
) -> None:
    first = mention(FIRST)
    env = bot_env(slack_api, **redis_area.env, **e5_env)
    async with compose(env) as one, compose(env) as other:
        await _asked(RunningBot(one.url, one.http, one.handled), first)
        await _asked(
            RunningBot(other.url, other.http, other.handled), in_thread(FOLLOW_UP, first["ts"])
        )
    _, follow_up = slack_api.thread(CHANNEL, first["ts"])
    assert "5600" in follow_up.text


async def test_the_thread_shows_a_status_while_answering_and_it_is_cleared(
    slack_api: FakeSlackApi, e5_env: dict[str, str]
) -> None:
    first = mention(FIRST)
    async with compose(bot_env(slack_api, **e5_env)) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        await _asked(bot, first)
    shown, *stages, cleared = slack_api.statuses
    assert (shown["channel_id"], shown["thread_ts"]) == (CHANNEL, first["ts"])
    assert shown["status"] == STATUS["zh"]["retrieving"]
    assert shown["loading_messages"] == [STATUS["zh"]["retrieving"]]
    later = [STATUS["zh"]["generating"], STATUS["zh"]["checking"]]
    assert [s["status"] for s in stages] == [s for s in later if s in str(stages)]
    assert cleared["status"] == ""
    [answer] = slack_api.thread(CHANNEL, first["ts"])
    assert answer.edits == 0  # no placeholder: the answer was posted as itself
    assert WORKING["zh"] not in [call.args.get("text") for call in slack_api.calls]


async def test_a_refused_status_falls_back_to_the_placeholder(
    slack_api: FakeSlackApi, e5_env: dict[str, str]
) -> None:
    scope, limited = mention(FIRST), mention("How many days of annual leave do I get?")
    slack_api.refuse_scope("assistant.threads.setStatus", "chat:write")
    slack_api.rate_limit("assistant.threads.setStatus", retry_after="30")
    async with compose(bot_env(slack_api, **e5_env)) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        await _asked(bot, scope, limited)
    for event in (scope, limited):
        [answer] = slack_api.thread(CHANNEL, event["ts"])
        assert answer.edits == 1  # the placeholder, replaced by the answer
        assert re.search(r"\[\d+\]", answer.text)
    posted = [call.args["text"] for call in slack_api.calls_to("chat.postMessage")]
    assert posted == [WORKING["zh"], WORKING["en"]]
    assert [call.status for call in slack_api.calls_to("assistant.threads.setStatus")] == [
        200,
        429,
    ]
    assert not slack_api.statuses


async def test_a_follow_up_s_review_card_shows_the_conversation_that_led_to_it(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    first = mention(FIRST)
    model = ScriptedChatModel(
        replies=["流利级的课程费为 9999 元[1]。", "商务级的课程费为 8888 元[1]。"]
    )
    pipeline = hashing_pipeline(docs_index, model=model, min_score=-1.0)
    async with compose(bot_env(slack_api), pipeline=pipeline, with_review=True) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        await _asked(bot, first, in_thread(FOLLOW_UP, first["ts"]))
    _, card = slack_api.in_channel(REVIEW_CHANNEL)
    shown = json.dumps(card.blocks, ensure_ascii=False)
    assert "商务级的课程费是多少？" in shown  # the standalone question is what was reviewed
    assert f"对话中此前的问题：{FIRST}　·　原话：{FOLLOW_UP}" in shown
