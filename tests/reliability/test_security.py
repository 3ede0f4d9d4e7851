"""Nobody but Slack gets in, nobody but a reviewer decides, and no secret leaves the process.

Secrets are real-looking values (tests/reliability/app.py): the bot token, the signing secret,
the LLM API key and the Redis password in REDIS_URL. A whole conversation — answer, refusal,
review card, model failure, Redis dying, Slack refusing — runs with every logger at DEBUG; the
captured logs, every argument posted to Slack and /healthz are scanned for each secret.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any
from urllib.parse import quote

import pytest

from bot.slack.review_cards import APPROVE, EDIT, REJECT, TEXT_INPUT
from rag.search.index import Index
from rag.settings import Settings
from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.openai_server import FakeOpenAIServer, HttpError
from tests.fakes.redis_server import OwnRedis
from tests.fakes.slack_api import TEAM_ID, FakeSlackApi, Message
from tests.reliability.app import (
    BOT_TOKEN,
    LLM_API_KEY,
    REDIS_PASSWORD,
    REVIEW_CHANNEL,
    REVIEWER,
    SECRETS,
    SIGNING_SECRET,
    Bot,
    everything_posted,
    serve,
    sign,
)
from tests.reliability.models import openai_model
from tests.scenarios.harness import CHANNEL, IN_KB, OUT_OF_KB, button_click, envelope, mention

OUTSIDER = "U0OUTSIDER"
QUESTIONS = (
    IN_KB,
    "口语课一共有几级？",
    "流利级多少钱？",
    OUT_OF_KB,
    "年假有几天？",
    "报销流程是什么？",
    "How do refunds work?",
)
INVENTED = "退费要收 99% 的手续费[1]。"


def event_body() -> bytes:
    return json.dumps(envelope(mention(IN_KB))).encode()


def click_body() -> bytes:
    payload = {"type": "block_actions", "user": {"id": REVIEWER}, "actions": [], "team": {}}
    return f"payload={quote(json.dumps(payload))}".encode()


def forged_headers(body: bytes) -> dict[str, dict[str, str]]:
    now = int(time.time())
    return {
        "unsigned": {},
        "other-secret": sign(body, secret="not-the-signing-secret"),
        "replayed-301s": sign(body, timestamp=now - 301),
        # Far enough ahead that it is still over five minutes ahead when Bolt checks it, a
        # second or two later on a busy machine (301 s became 300 s there, and was accepted).
        "future-330s": sign(body, timestamp=now + 330),
        "other-body": sign(body + b" "),
        "timestamp-swapped": {
            **sign(body, timestamp=now - 400),
            "X-Slack-Request-Timestamp": str(now),
        },
        "garbage": {"X-Slack-Request-Timestamp": "soon", "X-Slack-Signature": "v0=zz"},
    }


@pytest.mark.parametrize(
    ("make_body", "content_type"),
    [(event_body, "application/json"), (click_body, "application/x-www-form-urlencoded")],
    ids=["event", "click"],
)
async def test_unsigned_forged_and_replayed_requests_get_401_and_cause_no_slack_call(
    slack_api: FakeSlackApi, docs_index: Index, make_body: Any, content_type: str
) -> None:
    body = make_body()
    async with serve(slack_api, index=docs_index) as bot:
        statuses = {
            name: await bot.post(body, {"Content-Type": content_type, **headers})
            for name, headers in forged_headers(body).items()
        }
        await bot.idle()
        assert [call.method for call in slack_api.calls] == ["auth.test"]  # only at start
        assert set(statuses.values()) == {401}, statuses
        assert await bot.post(body, {"Content-Type": content_type, **sign(body)}) != 401


async def test_a_signed_event_replayed_within_five_minutes_is_not_answered_again(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    slack_api.without_status()  # the placeholder path, as without thread statuses
    body = event_body()
    headers = {"Content-Type": "application/json", **sign(body)}
    async with serve(slack_api, index=docs_index) as bot:
        assert await bot.post(body, headers) == 200
        await bot.idle()
        assert len(slack_api.calls_to("chat.update")) == 1
        assert await bot.post(body, headers) == 200
        await bot.idle()
    assert len(slack_api.messages) == 1


async def review_card(bot: Bot, slack: FakeSlackApi) -> Message:
    assert await bot.send(envelope(mention(IN_KB))) == 200
    await bot.idle()
    [card] = slack.in_channel(REVIEW_CHANNEL)
    return card


def button(card: Message, action_id: str) -> dict[str, Any]:
    return next(
        element
        for block in card.blocks
        if block["type"] == "actions"
        for element in block["elements"]
        if element.get("action_id") == action_id
    )


async def test_review_buttons_and_app_home_do_nothing_for_a_non_reviewer(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    model = ScriptedChatModel(replies=[INVENTED])
    async with serve(slack_api, index=docs_index, model=model) as bot:
        card = await review_card(bot, slack_api)
        before = [(m.channel, m.ts, m.text, m.edits) for m in slack_api.messages]
        for action_id in (APPROVE, EDIT, REJECT):
            click = button_click(
                slack_api,
                channel=REVIEW_CHANNEL,
                message_ts=card.ts,
                button=button(card, action_id),
                user=OUTSIDER,
            )
            assert await bot.click(click) == 200
        home = {
            "type": "app_home_opened",
            "user": OUTSIDER,
            "channel": "D0OUTSIDER",
            "tab": "home",
            "event_ts": "1.0",
        }
        assert await bot.send(envelope(home)) == 200
        await bot.idle()
        assert len(slack_api.ephemerals) == 3
        assert slack_api.views
    assert {e.user for e in slack_api.ephemerals} == {OUTSIDER}
    assert [(m.channel, m.ts, m.text, m.edits) for m in slack_api.messages] == before
    assert slack_api.calls_to("views.open") == []
    [home_view] = slack_api.views
    assert IN_KB not in json.dumps(home_view, ensure_ascii=False)
    assert "99%" not in json.dumps(home_view, ensure_ascii=False)


async def test_a_modal_submitted_by_a_non_reviewer_is_refused_and_changes_nothing(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    model = ScriptedChatModel(replies=[INVENTED])
    async with serve(slack_api, index=docs_index, model=model) as bot:
        card = await review_card(bot, slack_api)
        edit = button_click(
            slack_api,
            channel=REVIEW_CHANNEL,
            message_ts=card.ts,
            button=button(card, EDIT),
            user=REVIEWER,
        )
        assert await bot.click(edit) == 200
        await slack_api.wait_until(lambda: bool(slack_api.views))
        before = [(m.channel, m.ts, m.text, m.edits) for m in slack_api.messages]
        values = {TEXT_INPUT: {"value": {"type": "plain_text_input", "value": "全额退款[1]。"}}}
        submission = {
            "type": "view_submission",
            "user": {"id": OUTSIDER, "username": "mallory", "team_id": TEAM_ID},
            "api_app_id": "A0CITEBOT",
            "team": {"id": TEAM_ID, "domain": "citebot-test"},
            "trigger_id": slack_api.new_trigger_id(),
            "view": {**slack_api.views[0], "state": {"values": values}, "team_id": TEAM_ID},
        }
        status, body = await bot.interact(submission)
        await bot.idle()
    assert status == 200
    errors = json.loads(body)["errors"]
    assert any("复核人员" in text for text in errors.values())  # "only reviewers can …"
    assert [(m.channel, m.ts, m.text, m.edits) for m in slack_api.messages] == before
    assert "全额退款" not in everything_posted(slack_api)


def secrets_in(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


async def test_no_secret_reaches_logs_slack_or_healthz_through_a_rough_conversation(
    slack_api: FakeSlackApi, docs_index: Index, caplog: pytest.LogCaptureFixture
) -> None:
    redis = OwnRedis(password=REDIS_PASSWORD)
    redis.start()
    caplog.set_level(logging.DEBUG)
    try:
        async with FakeOpenAIServer(api_key=LLM_API_KEY) as llm, openai_model(llm) as model:
            llm.script(INVENTED, HttpError(503), HttpError(503), HttpError(401))
            llm.responder = lambda _: "退费按剩余课时计算[1]。"
            async with serve(slack_api, index=docs_index, model=model, redis_url=redis.url) as bot:
                for question in QUESTIONS[:4]:
                    assert await bot.send(envelope(mention(question))) == 200
                    await bot.idle()
                redis.kill()
                slack_api.fail("chat.postMessage", "invalid_auth")
                slack_api.fail("chat.update", "msg_too_long")
                for question in QUESTIONS[4:]:
                    assert await bot.send(envelope(mention(question))) == 200
                    await bot.idle()
                _, health = await bot.get("/healthz")
        assert len(llm.requests) >= 4
        assert all(r.authorization == f"Bearer {LLM_API_KEY}" for r in llm.requests)
    finally:
        redis.kill()
    assert slack_api.in_channel(REVIEW_CHANNEL)
    assert slack_api.in_channel(CHANNEL)
    assert any(record.levelno == logging.DEBUG for record in caplog.records)
    assert secrets_in(caplog.text) == []
    assert secrets_in(everything_posted(slack_api)) == []
    assert secrets_in(health) == []
    assert all(chunk.text[:30] not in health for chunk in docs_index.chunks)
    assert SIGNING_SECRET not in health
    assert BOT_TOKEN.split("-")[-1] not in caplog.text
    info = "\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.INFO)
    assert [q for q in QUESTIONS if q in info] == []  # LOG_QUESTIONS is off: hashes only


def test_settings_never_print_their_secrets() -> None:
    settings = Settings(
        llm_api_key=LLM_API_KEY,
        embeddings_api_key=LLM_API_KEY,
        redis_url=f"redis://:{REDIS_PASSWORD}@127.0.0.1:6379/0",
    )
    assert secrets_in(repr(settings)) == []
    assert secrets_in(str(settings)) == []
