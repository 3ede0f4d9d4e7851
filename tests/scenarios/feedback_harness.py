"""Clicks on the feedback under an answer, as Slack sends them: the 👍 / 👎 of the
``feedback_buttons``, the "what was wrong" button in the ephemeral thanks, and its form."""

from __future__ import annotations

import json
from typing import Any

from bot.slack.feedback_buttons import NOTE_BLOCK, NOTE_INPUT, TELL_ACTION
from tests.fakes.handled import IDLE_SECONDS
from tests.fakes.slack_api import TEAM_ID, Ephemeral, FakeSlackApi, Message
from tests.scenarios.harness import CHANNEL, RunningBot, button_click, envelope, mention

BOB, CAROL, DAVE = "U0BOB", "U0CAROL", "U0DAVE"


def feedback_button(message: Message, verdict: str) -> dict[str, Any]:
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


async def vote(
    bot: RunningBot, slack: FakeSlackApi, answer: Message, verdict: str, *, user: str
) -> None:
    click = button_click(
        slack,
        channel=answer.channel,
        message_ts=answer.ts,
        button=feedback_button(answer, verdict),
        user=user,
    )
    assert (await bot.click(click)).status == 200
    await bot.idle()


async def ask(
    bot: RunningBot, slack: FakeSlackApi, question: str, *, within: float = IDLE_SECONDS
) -> Message:
    """Mention the bot in a new thread; the one reply it got (within ``within`` seconds)."""
    asked = mention(question)
    assert (await bot.send(envelope(asked))).status == 200
    await bot.idle(within=within)
    [reply] = slack.thread(CHANNEL, asked["ts"])
    return reply


async def tell_what_was_wrong(
    bot: RunningBot, slack: FakeSlackApi, thanks: Ephemeral, note: str
) -> None:
    """Click the thanks' "what was wrong" button, then send the form it opened with ``note``."""
    [button] = [b["accessory"] for b in thanks.blocks if "accessory" in b]
    assert button["action_id"] == TELL_ACTION
    views_before = len(slack.views)
    click = {
        "type": "block_actions",
        "user": {"id": thanks.user, "username": "x", "name": "x", "team_id": TEAM_ID},
        "api_app_id": "A0CITEBOT",
        "token": "legacy-unused",
        "trigger_id": slack.new_trigger_id(),
        "team": {"id": TEAM_ID, "domain": "citebot-test"},
        "container": {
            "type": "message",
            "message_ts": "1800000000.000200",
            "channel_id": thanks.channel,
            "is_ephemeral": True,
        },
        "channel": {"id": thanks.channel, "name": "general"},
        "state": {"values": {}},
        "response_url": "https://hooks.slack.com/actions/T0/1/x",
        "actions": [{**button, "block_id": "b", "action_ts": "1"}],
    }
    assert (await bot.click(click)).status == 200
    await bot.idle()
    assert len(slack.views) == views_before + 1, "the form opened"
    view = slack.views[-1]
    values = {NOTE_BLOCK: {NOTE_INPUT: {"type": "plain_text_input", "value": note}}}
    submission = {
        "type": "view_submission",
        "user": {"id": thanks.user, "username": "x", "team_id": TEAM_ID},
        "api_app_id": "A0CITEBOT",
        "token": "x",
        "trigger_id": slack.new_trigger_id(),
        "team": {"id": TEAM_ID, "domain": "citebot-test"},
        "view": {**view, "state": {"values": values}, "team_id": TEAM_ID},
    }
    assert (await bot.click(submission)).status == 200
    await bot.idle()


def shown(message: Message) -> str:
    return message.text + json.dumps(message.blocks, ensure_ascii=False)
