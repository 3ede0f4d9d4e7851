"""The thread's status per stage (bot/slack/thread.py): each stage shown once, in the asker's
language, in the background; a stage still waiting when the reply is ready is dropped; where
Slack refused the status, the placeholder stays and no stage is sent."""

from __future__ import annotations

from bot.ports import Reply
from bot.slack.thread import SlackThread
from bot.texts import STATUS
from tests.bot.slack.test_thread import ASKED, _client
from tests.fakes.slack_api import FakeSlackApi


async def test_each_stage_is_shown_once_and_the_reply_does_not_wait_for_a_later_one(
    slack_api: FakeSlackApi,
) -> None:
    thread = SlackThread(_client(slack_api), ASKED)
    await thread.working("en")
    thread.reached("retrieving", "en")  # shown by working() already
    thread.reached("generating", "en")
    await slack_api.wait_until(lambda: len(slack_api.statuses) == 2)
    thread.reached("generating", "en")
    thread.reached("checking", "en")  # the answer is ready before this one is sent
    await thread.reply(Reply("en", text="Refunds are pro rata."))

    words = STATUS["en"]
    assert [s["status"] for s in slack_api.statuses] == [
        words["retrieving"],
        words["generating"],
        "",
    ]
    assert slack_api.statuses[1]["loading_messages"] == [words["generating"]]
    assert {s["thread_ts"] for s in slack_api.statuses} == {ASKED.reply_thread}
    assert len(slack_api.messages) == 1


async def test_where_the_status_was_refused_the_placeholder_stays_and_no_stage_is_sent(
    slack_api: FakeSlackApi,
) -> None:
    slack_api.without_status()
    thread = SlackThread(_client(slack_api), ASKED)
    await thread.working("zh")
    for stage in ("generating", "checking"):
        thread.reached(stage, "zh")
    await thread.reply(Reply("zh", text="退费按剩余课时计算。"))

    assert len(slack_api.calls_to("assistant.threads.setStatus")) == 1
    [reply] = slack_api.messages
    assert reply.edits == 1, "the placeholder, replaced by the reply"
