"""Right after start, before a single passage is embedded, the bot answers what full mode would.

The bot is composed as ``python -m bot`` composes it over a copy of ``docs/`` with no index: it
serves the lexical index at once and embeds in the background — held back here, so every
question below is answered in the first-minutes phase (each question's lexical candidates
embedded on demand, :mod:`tests.scenarios.phases`). The refund rule leads its answer, a
follow-up in its thread is answered, and with a chat model configured a draft that fails the
check reaches the review channel, on Slack and on Feishu. (The README's examples and what the
documents don't say, in both phases: ``test_answerability.py``.)
"""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path

import pytest

from tests.fakes.feishu_api import FakeFeishuApi
from tests.fakes.feishu_events import FeishuEvents
from tests.fakes.openai_fixture import openai_server
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.fakes.slack_api import FakeSlackApi
from tests.redis_area import RedisArea
from tests.scenarios.feishu_harness import REVIEW_CHAT, REVIEWER, FeishuBot, feishu_env
from tests.scenarios.harness import (
    CHANNEL,
    REVIEW_CHANNEL,
    RunningBot,
    bot_env,
    envelope,
    mention,
)
from tests.scenarios.phases import docs_env, serving

__all__ = ["openai_server"]


async def ask(
    bot: RunningBot, slack: FakeSlackApi, question: str, *, thread_ts: str | None = None
) -> tuple[str, str]:
    event = mention(question, ts=f"{time.time():.6f}")
    if thread_ts is not None:
        event["thread_ts"] = thread_ts
    await bot.send(envelope(event, event_id=f"Ev{uuid.uuid4().hex[:12]}"))
    await bot.idle()
    root = thread_ts or event["ts"]
    await slack.wait_until(lambda: len(slack.thread(CHANNEL, root)) > 0, within=20)
    replies = [m for m in slack.thread(CHANNEL, root) if m.ts > event["ts"]] or slack.thread(
        CHANNEL, root
    )
    return replies[-1].text, event["ts"]


async def test_the_refund_rule_leads_and_the_follow_up_is_answered_in_its_thread(
    slack_api: FakeSlackApi,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    e5_env: dict[str, str],
) -> None:
    variables = bot_env(slack_api, **docs_env(tmp_path, "first", e5_env))
    async with serving(variables, "first", monkeypatch) as bot:
        refund, ts = await ask(bot, slack_api, "退费怎么算？")
        transfer, _ = await ask(bot, slack_api, "那转班呢？", thread_ts=ts)
    assert refund.startswith("退费金额 = 实付课程费")
    assert "最低 50 元" in refund
    assert "转班" in transfer
    assert re.search(r"\[\d\]", transfer)


async def test_with_a_model_a_draft_that_fails_the_check_reaches_the_review_channel(
    slack_api: FakeSlackApi,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    e5_env: dict[str, str],
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.script(Reply("口语课一共有六个级别，每级 12 课时[1]。"))
    model = {"LLM_BASE_URL": openai_server.base_url, "LLM_API_KEY": openai_server.api_key}
    variables = bot_env(slack_api, **docs_env(tmp_path, "first", e5_env, LLM_MODEL="m", **model))
    async with serving(variables, "first", monkeypatch) as bot:
        told, _ = await ask(bot, slack_api, "口语课一共有几级？")
        await slack_api.wait_until(lambda: bool(slack_api.in_channel(REVIEW_CHANNEL)), within=20)
    assert "六个级别" not in told
    cards = slack_api.in_channel(REVIEW_CHANNEL)
    assert any("六个级别" in str(card.blocks) for card in cards)


async def test_on_feishu_a_question_asked_at_once_with_a_model_reaches_the_review_group(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    e5_env: dict[str, str],
    openai_server: FakeOpenAIServer,
    redis_area: RedisArea,
) -> None:
    openai_server.script(Reply("口语课一共有六个级别，每级 12 课时[1]。"))
    async with FakeFeishuApi() as feishu:
        feishu.chat_members[REVIEW_CHAT] = [REVIEWER]
        variables = feishu_env(
            feishu,
            **docs_env(tmp_path, "first", e5_env),
            **redis_area.env,
            FEISHU_REVIEW_CHAT=REVIEW_CHAT,
            LLM_BASE_URL=openai_server.base_url,
            LLM_API_KEY=openai_server.api_key,
            LLM_MODEL="m",
        )
        async with serving(variables, "first", monkeypatch) as served:
            bot = FeishuBot(feishu, FeishuEvents(f"{served.url}/feishu/events"))
            question, _ = await bot.ask_group("口语课一共有几级？")
            [note] = await bot.replies(question)
            await feishu.wait_until(lambda: len(feishu.in_chat(REVIEW_CHAT)) == 1)
        [card] = feishu.in_chat(REVIEW_CHAT)
    assert "人工复核" in note.text
    assert "六个级别" in card.text
