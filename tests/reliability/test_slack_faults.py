"""Slack refusing calls: logged with context, the asker gets something where Slack lets us, the
process survives and the next question is answered.

(429 on chat.postMessage/chat.update and a 3000-character split are pinned in
tests/scenarios/test_questions.py; these are the other errors Slack documents.)
"""

from __future__ import annotations

import logging
import re

import pytest

from bot.slack.client import RATE_LIMIT_RETRIES
from bot.texts import WORKING
from rag.messages import model_failure_text
from rag.search.index import Index
from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.openai_server import FakeOpenAIServer, HttpError
from tests.fakes.slack_api import FakeSlackApi
from tests.reliability.app import REVIEW_CHANNEL, REVIEWER, Bot, serve
from tests.reliability.models import openai_model
from tests.scenarios.harness import CHANNEL, IN_KB, button_click, envelope, mention


def logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(record.getMessage() for record in caplog.records)


async def answered(bot: Bot, slack: FakeSlackApi, question: str = IN_KB) -> str:
    """Ask in the channel and return the text of the final reply in the thread."""
    event = mention(question)
    assert await bot.send(envelope(event)) == 200
    ts = event["ts"]

    await bot.idle()
    return next(m.text for m in slack.thread(CHANNEL, ts) if m.text != WORKING["zh"])


@pytest.mark.parametrize("error", ["channel_not_found", "not_in_channel", "is_archived"])
async def test_a_channel_the_bot_cannot_post_in_is_logged_and_the_next_question_answered(
    slack_api: FakeSlackApi, docs_index: Index, caplog: pytest.LogCaptureFixture, error: str
) -> None:
    slack_api.fail("chat.postMessage", error)
    event = envelope(mention(IN_KB), event_id="EvNOPOST")
    async with serve(slack_api, index=docs_index) as bot:
        with caplog.at_level(logging.INFO):
            assert await bot.send(event) == 200
            await bot.idle()
            assert len(slack_api.calls_to("chat.postMessage")) == 1
            assert slack_api.messages == []
            assert re.search(r"\[\d+\]", await answered(bot, slack_api))
    text = logged(caplog)
    assert error in text
    assert "EvNOPOST" in text
    assert CHANNEL in text


@pytest.mark.parametrize("error", ["msg_too_long", "cant_update_message", "message_not_found"])
async def test_a_refused_update_posts_the_answer_as_a_new_message(
    slack_api: FakeSlackApi, docs_index: Index, caplog: pytest.LogCaptureFixture, error: str
) -> None:
    slack_api.without_status()  # the placeholder path, as without thread statuses
    slack_api.fail("chat.update", error)
    async with serve(slack_api, index=docs_index) as bot:
        with caplog.at_level(logging.WARNING):
            assert re.search(r"\[\d+\]", await answered(bot, slack_api))
            assert re.search(
                r"\[\d+\]", await answered(bot, slack_api)
            )  # and the next one as usual
    assert error in logged(caplog)


async def test_a_429_storm_on_chat_update_beyond_the_retries_still_delivers_the_answer(
    slack_api: FakeSlackApi, docs_index: Index, caplog: pytest.LogCaptureFixture
) -> None:
    slack_api.without_status()  # the placeholder path, as without thread statuses
    slack_api.rate_limit("chat.update", times=RATE_LIMIT_RETRIES + 1, retry_after="0")
    async with serve(slack_api, index=docs_index) as bot:
        with caplog.at_level(logging.WARNING):
            assert re.search(r"\[\d+\]", await answered(bot, slack_api))
    statuses = [call.status for call in slack_api.calls_to("chat.update")]
    assert statuses == [429] * (RATE_LIMIT_RETRIES + 1)
    assert "ratelimited" in logged(caplog)


async def test_an_unreachable_chat_model_ends_in_one_human_sentence_in_the_thread(
    slack_api: FakeSlackApi,
    docs_index: Index,
    openai_server: FakeOpenAIServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    openai_server.script(HttpError(503), HttpError(503))
    async with (
        openai_model(openai_server) as model,
        serve(slack_api, index=docs_index, model=model) as bot,
    ):
        with caplog.at_level(logging.WARNING):
            assert await answered(bot, slack_api) == model_failure_text("zh")
            openai_server.script("退费按剩余课时计算[1]。")
            assert re.search(r"\[\d+\]", await answered(bot, slack_api))
    assert "HTTP 503" in logged(caplog)
    assert "Traceback" not in "".join(m.text for m in slack_api.messages)


async def test_an_expired_trigger_on_edit_tells_the_reviewer_and_decides_nothing(
    slack_api: FakeSlackApi, docs_index: Index, caplog: pytest.LogCaptureFixture
) -> None:
    model = ScriptedChatModel(replies=["退费要收 99% 的手续费[1]。"])
    async with serve(slack_api, index=docs_index, model=model) as bot:
        await answered(bot, slack_api)
        [card] = slack_api.in_channel(REVIEW_CHANNEL)
        edit = next(
            element
            for block in card.blocks
            if block["type"] == "actions"
            for element in block["elements"]
            if "edit" in str(element.get("action_id"))
        )
        slack_api.trigger_ttl_seconds = -1.0  # every trigger_id has expired by the time it's used
        with caplog.at_level(logging.WARNING):
            click = button_click(
                slack_api,
                channel=REVIEW_CHANNEL,
                message_ts=card.ts,
                button=edit,
                user=REVIEWER,
            )
            assert await bot.click(click) == 200
            await bot.idle()
            assert len(slack_api.ephemerals) == 1
        assert [c.response.get("error") for c in slack_api.calls_to("views.open")] == [
            "expired_trigger_id"
        ]
        assert slack_api.ephemerals[0].user == REVIEWER
        assert card.edits == 0  # still open: buttons in place, nothing decided
        assert await answered(bot, slack_api)  # the process still answers
    assert "did not open" in logged(caplog)
