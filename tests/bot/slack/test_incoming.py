"""Which events are questions, and where their reply goes."""

from __future__ import annotations

from typing import Any

import pytest

from bot.slack.incoming import incoming

BOT = "U0BOT"


def _event(**fields: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "channel_type": "im",
        "channel": "D1",
        "user": "U1",
        "text": "hi",
        "ts": "2.0",
        **fields,
    }


def test_mention_replies_in_its_thread_or_starts_one() -> None:
    top = incoming(
        {"event_id": "Ev1"},
        _event(type="app_mention", channel="C1", channel_type=None),
        bot_user_id=BOT,
    )
    assert top is not None
    assert (top.reply_thread, top.channel_type, top.event_id) == ("2.0", "channel", "Ev1")
    threaded = incoming(
        {}, _event(type="app_mention", channel="C1", thread_ts="1.0"), bot_user_id=BOT
    )
    assert threaded is not None
    assert threaded.reply_thread == "1.0"


def test_top_level_dm_is_answered_at_top_level_but_followed_up_under_it() -> None:
    asked = incoming({"event_id": "Ev1"}, _event(), bot_user_id=BOT)
    assert asked is not None
    assert asked.reply_thread is None
    assert asked.follow_up_thread == "2.0"


@pytest.mark.parametrize(
    "fields",
    [
        {"bot_id": "B1"},
        {"subtype": "message_changed"},
        {"subtype": "bot_message", "user": None},
        {"hidden": True},
        {"user": BOT},
        {"user": "USLACKBOT"},
        {"channel_type": "channel"},  # a channel message that does not mention the bot
    ],
)
def test_not_questions(fields: dict[str, Any]) -> None:
    assert incoming({}, _event(**fields), bot_user_id=BOT) is None


def test_channel_message_mentioning_the_bot_is_a_question() -> None:
    asked = incoming(
        {}, _event(channel="C1", channel_type="channel", text=f"<@{BOT}> hi"), bot_user_id=BOT
    )
    assert asked is not None
    assert asked.reply_thread == "2.0"


def test_a_thread_message_without_a_mention_is_a_candidate_follow_up() -> None:
    asked = incoming(
        {}, _event(channel="C1", channel_type="channel", thread_ts="1.0"), bot_user_id=BOT
    )
    assert asked is not None
    assert (asked.follow_up, asked.reply_thread, asked.conversation.key) == (True, "1.0", "C1:1.0")


@pytest.mark.parametrize(
    "text", ["<@U0BOB> 那商务级呢？", "<@W0BOB|bob> what about it?", "<!here> anyone?"]
)
def test_a_thread_message_addressed_to_people_is_not_a_follow_up(text: str) -> None:
    event = _event(channel="C1", channel_type="channel", thread_ts="1.0", text=text)
    assert incoming({}, event, bot_user_id=BOT) is None


def test_a_thread_message_mentioning_the_bot_is_a_question_not_a_follow_up() -> None:
    event = _event(channel="C1", channel_type="channel", thread_ts="1.0", text=f"<@{BOT}> q")
    asked = incoming({}, event, bot_user_id=BOT)
    assert asked is not None
    assert not asked.follow_up


def test_a_top_level_dm_belongs_to_the_dm_s_recent_conversation() -> None:
    asked = incoming({}, _event(), bot_user_id=BOT)
    assert asked is not None
    assert asked.conversation.key == "D1:top"
