"""Right after start, before a single passage is embedded, the bot answers what full mode would.

The bot is composed as ``python -m bot`` composes it over a copy of ``docs/`` with no index: it
serves the lexical index at once and embeds in the background — held back here, so every
question below is answered in the lexical phase, with its own threshold. The README's examples
are answered (with and without ``？``, as a follow-up), the refund rule leads its answer, and
with a chat model configured a draft that fails the check reaches the review channel.
"""

from __future__ import annotations

import re
import shutil
import threading
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from rag import serve_pipeline
from rag.reviewed.answers import ReviewedAnswers
from rag.search.embeddings import HashingEmbeddings
from rag.settings import Settings
from tests.fakes.feishu_api import FakeFeishuApi
from tests.fakes.feishu_events import FeishuEvents
from tests.fakes.openai_fixture import openai_server
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.fakes.slack_api import FakeSlackApi
from tests.redis_area import RedisArea
from tests.scenarios.feishu_harness import REVIEW_CHAT, REVIEWER, FeishuBot, feishu_env
from tests.scenarios.harness import (
    CHANNEL,
    DOCS,
    REVIEW_CHANNEL,
    RunningBot,
    bot_env,
    compose,
    envelope,
    mention,
)

__all__ = ["openai_server"]


class HeldEmbeddings(HashingEmbeddings):
    """Embeds nothing until the test ends: the bot stays in its lexical phase throughout."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.release.wait(60)
        return super().embed_documents(texts)


@asynccontextmanager
async def just_started(variables: dict[str, str]) -> AsyncIterator[tuple[RunningBot, str]]:
    embeddings = HeldEmbeddings()

    def pipeline(settings: Settings, reviewed: ReviewedAnswers) -> Any:
        return serve_pipeline(settings, redis=None, reviewed=reviewed, embeddings=embeddings)

    try:
        async with compose(variables, pipeline=pipeline) as served:
            yield RunningBot(served.url, served.http, served.handled), f"{served.url}/healthz"
    finally:
        embeddings.release.set()


def env(slack: FakeSlackApi, tmp_path: Path, **extra: str) -> dict[str, str]:
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    variables = {"DOCS_DIR": str(docs), "INDEX_DIR": str(tmp_path / "index")}
    variables |= {"EMBEDDINGS": "e5", "REFRESH_SECONDS": "0"}
    return bot_env(slack, **variables, **extra)


async def ask(
    bot: RunningBot, slack: FakeSlackApi, question: str, *, thread_ts: str | None = None
) -> tuple[str, str]:
    event = mention(question, ts=f"{time.time():.6f}")
    if thread_ts is not None:
        event["thread_ts"] = thread_ts
    await bot.send(envelope(event, event_id=f"Ev{uuid.uuid4().hex[:12]}"))
    await bot.idle()
    root = thread_ts or event["ts"]
    await slack.wait_until(lambda: len(slack.thread(CHANNEL, root)) > 0, within=10)
    replies = [m for m in slack.thread(CHANNEL, root) if m.ts > event["ts"]] or slack.thread(
        CHANNEL, root
    )
    return replies[-1].text, event["ts"]


async def lexical(bot: RunningBot, health: str) -> bool:
    async with bot.http.get(health) as response:
        return (await response.json())["index"]["mode"] == "lexical"  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("口语课一共有几级？", "四个级别"),
        ("转班怎么算", "转班"),
        ("转班怎么算？", "转班"),
        ("流利级的课程费是多少？", "4800"),
        ("How often must I change my password?", "Passwords are changed"),
    ],
)
async def test_the_readme_examples_are_answered_in_the_first_seconds(
    slack_api: FakeSlackApi, tmp_path: Path, question: str, answer: str
) -> None:
    async with just_started(env(slack_api, tmp_path)) as (bot, health):
        assert await lexical(bot, health)
        text, _ = await ask(bot, slack_api, question)
    assert answer in text
    assert re.search(r"\[1\]", text)


async def test_the_refund_rule_leads_and_the_follow_up_is_answered_in_its_thread(
    slack_api: FakeSlackApi, tmp_path: Path
) -> None:
    async with just_started(env(slack_api, tmp_path)) as (bot, health):
        assert await lexical(bot, health)
        refund, ts = await ask(bot, slack_api, "退费怎么算？")
        transfer, _ = await ask(bot, slack_api, "那转班呢？", thread_ts=ts)
    assert refund.startswith("退费金额 = 实付课程费")
    assert "最低 50 元" in refund
    assert "转班" in transfer
    assert re.search(r"\[\d\]", transfer)


async def test_with_a_model_a_draft_that_fails_the_check_reaches_the_review_channel(
    slack_api: FakeSlackApi, tmp_path: Path, openai_server: FakeOpenAIServer
) -> None:
    openai_server.script(Reply("口语课一共有六个级别，每级 12 课时[1]。"))
    model = {"LLM_BASE_URL": openai_server.base_url, "LLM_API_KEY": openai_server.api_key}
    async with just_started(env(slack_api, tmp_path, LLM_MODEL="m", **model)) as (bot, health):
        assert await lexical(bot, health)
        told, _ = await ask(bot, slack_api, "口语课一共有几级？")
        await slack_api.wait_until(lambda: bool(slack_api.in_channel(REVIEW_CHANNEL)), within=10)
    assert "六个级别" not in told
    cards = slack_api.in_channel(REVIEW_CHANNEL)
    assert any("六个级别" in str(card.blocks) for card in cards)


async def test_on_feishu_a_question_asked_at_once_with_a_model_reaches_the_review_group(
    tmp_path: Path, openai_server: FakeOpenAIServer, redis_area: RedisArea
) -> None:
    openai_server.script(Reply("口语课一共有六个级别，每级 12 课时[1]。"))
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    async with FakeFeishuApi() as feishu:
        feishu.chat_members[REVIEW_CHAT] = [REVIEWER]
        variables = feishu_env(
            feishu,
            DOCS_DIR=str(docs),
            INDEX_DIR=str(tmp_path / "index"),
            EMBEDDINGS="e5",
            REFRESH_SECONDS="0",
            **redis_area.env,
            FEISHU_REVIEW_CHAT=REVIEW_CHAT,
            LLM_BASE_URL=openai_server.base_url,
            LLM_API_KEY=openai_server.api_key,
            LLM_MODEL="m",
        )
        async with just_started(variables) as (served, health):
            assert await lexical(served, health)
            bot = FeishuBot(feishu, FeishuEvents(f"{served.url}/feishu/events"))
            question, _ = await bot.ask_group("口语课一共有几级？")
            [note] = await bot.replies(question)
            await feishu.wait_until(lambda: len(feishu.in_chat(REVIEW_CHAT)) == 1)
        [card] = feishu.in_chat(REVIEW_CHAT)
    assert "人工复核" in note.text
    assert "六个级别" in card.text
