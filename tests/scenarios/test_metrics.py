"""``GET /metrics`` of the real app, scraped and parsed as Prometheus would, moves with what
happens: questions answered, refused and sent to review, a cache hit, a 429 from the chat
model retried, a reviewer's decision, the served index, a wiki sync.

The app is composed as ``python -m bot`` composes it from the environment (its own live
pipeline over docs/, lexical retrieval, the chat model at a fake OpenAI-compatible server), and
driven over signed HTTP with the fake Slack Web API watching.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

import rag.serving.serve
from rag import LivePipeline, ReviewedAnswers, Settings, model_failure_text, serve_pipeline
from rag.search.index import Index
from tests.fakes import confluence_api
from tests.fakes.confluence_api import FakeConfluence
from tests.fakes.feishu_api import FakeFeishuApi
from tests.fakes.openai_fixture import openai_server
from tests.fakes.openai_server import FakeOpenAIServer, HttpError
from tests.fakes.slack_api import FakeSlackApi, Message
from tests.redis_area import RedisArea
from tests.scenarios.feishu_harness import start_feishu
from tests.scenarios.harness import (
    ALICE,
    CHANNEL,
    DOCS,
    IN_KB,
    OUT_OF_KB,
    REVIEW_CHANNEL,
    RunningBot,
    bot_env,
    button_click,
    compose,
    envelope,
    mention,
)
from tests.scenarios.metrics_scrape import FAMILIES, Scrape, scrape
from tests.scenarios.phases import HeldBackfill, docs_env

__all__ = ["openai_server"]

REVIEWER = "U0REVIEWER"
GROUNDED = "退费金额 = 实付课程费 ×（剩余课时 ÷ 总课时）− 手续费[1]。"
TRANSFER = "转班规则是什么？"  # answered by EMBEDDINGS=none's strict gate too
INVENTED = "转班一律收取 99% 的手续费[1]。"
BUSINESS_FEE = "商务级的课程费是多少？"  # one EMBEDDINGS=none answers (its gate is strict)
WITHIN = 20.0


@dataclass
class Metered:
    bot: RunningBot
    slack: FakeSlackApi
    llm: FakeOpenAIServer

    async def metrics(self) -> Scrape:
        return await scrape(self.bot.http, self.bot.url)

    async def ask(self, question: str) -> Message:
        event = mention(question, ts=f"{time.time():.6f}")
        await self.bot.send(envelope(event, event_id=f"Ev{uuid.uuid4().hex[:12]}"))
        await self.bot.idle()
        await self.slack.wait_until(lambda: bool(self.replies(event["ts"])), within=10)
        return self.replies(event["ts"])[-1]

    def replies(self, ts: str) -> list[Message]:
        return [m for m in self.slack.thread(CHANNEL, ts) if m.ts > ts]


@pytest.fixture
async def metered(
    slack_api: FakeSlackApi, openai_server: FakeOpenAIServer, tmp_path: Path
) -> AsyncIterator[Metered]:
    env = bot_env(
        slack_api,
        DOCS_DIR=str(DOCS),
        INDEX_DIR=str(tmp_path / "index"),
        EMBEDDINGS="none",
        REFRESH_SECONDS="0",
        REVIEWERS=REVIEWER,
        LLM_BASE_URL=openai_server.base_url,
        LLM_API_KEY=openai_server.api_key,
        LLM_MODEL="m",
    )
    async with compose(env) as served:
        yield Metered(RunningBot(served.url, served.http, served.handled), slack_api, openai_server)


def card_button(card: Message, action_id: str) -> dict[str, Any]:
    return next(
        element
        for block in card.blocks
        if block.get("type") == "actions"
        for element in block["elements"]
        if element.get("action_id") == action_id
    )


async def test_questions_the_model_the_cache_and_a_review_move_the_metrics(
    metered: Metered,
) -> None:
    started = time.time()
    first = await metered.metrics()
    assert [name for name in FAMILIES if name not in first.helps] == []
    assert first.value("citebot_questions_total") == 0
    assert first.value("citebot_review_queue_depth") == 0

    metered.llm.script(HttpError(429, retry_after="0"), GROUNDED)
    assert (await metered.ask(IN_KB)).text == GROUNDED
    answered = await metered.metrics()
    assert answered.value("citebot_questions_total", platform="slack", outcome="answered") == 1
    assert answered.value("citebot_model_errors_total", kind="http_429") == 1
    assert answered.value("citebot_model_retries_total", kind="http_429") == 1
    assert answered.value("citebot_model_calls_total", outcome="ok") == 1
    assert answered.value("citebot_answer_cache_lookups_total", result="miss") == 1
    for stage in ("retrieve", "generate", "check"):
        assert answered.value("citebot_answer_stage_duration_seconds_count", stage=stage) == 1
    assert answered.value("citebot_question_duration_seconds_count", outcome="answered") == 1

    assert (await metered.ask(IN_KB)).text == GROUNDED  # the same question: from the cache
    assert "资料里没写" in (await metered.ask(OUT_OF_KB)).text  # refused: no model call
    metered.llm.script(INVENTED)
    assert "人工复核" in (await metered.ask(TRANSFER)).text
    asked = await metered.metrics()
    assert asked.value("citebot_answer_cache_lookups_total", result="hit") == 1
    assert asked.value("citebot_model_calls_total", outcome="ok") == 2
    assert len(metered.llm.requests) == 3
    outcomes = {
        outcome: asked.value("citebot_questions_total", platform="slack", outcome=outcome)
        for outcome in ("answered", "refused", "to_review", "failed")
    }
    assert outcomes == {"answered": 2, "refused": 1, "to_review": 1, "failed": 0}
    assert asked.value("citebot_review_queue_depth", kind="review") == 1
    assert 0 < asked.value("citebot_review_queue_oldest_age_seconds") < time.time() - started

    [card] = metered.slack.in_channel(REVIEW_CHANNEL)
    approve = card_button(card, "review_approve")
    click = button_click(
        metered.slack, channel=REVIEW_CHANNEL, message_ts=card.ts, button=approve, user=REVIEWER
    )
    assert (await metered.bot.click(click)).status == 200
    await metered.bot.idle()
    decided = await metered.metrics()
    assert decided.value("citebot_review_decisions_total", kind="review", verdict="approved") == 1
    assert decided.value("citebot_review_time_to_decision_seconds_count", kind="review") == 1
    assert decided.value("citebot_review_queue_depth", kind="review") == 0
    assert decided.value("citebot_review_queue_oldest_age_seconds") == 0

    metered.llm.script(HttpError(400))  # a request the endpoint refuses: not retried
    assert (await metered.ask(BUSINESS_FEE)).text == model_failure_text("zh")
    failed = await metered.metrics()
    assert failed.value("citebot_questions_total", platform="slack", outcome="failed") == 1
    assert failed.value("citebot_model_calls_total", outcome="failed") == 1
    assert failed.value("citebot_model_errors_total", kind="http_4xx") == 1
    assert failed.value("citebot_model_retries_total", kind="http_4xx") == 0


async def test_the_index_gauges_say_what_healthz_says(metered: Metered) -> None:
    scraped = await metered.metrics()
    async with metered.bot.http.get(f"{metered.bot.url}/healthz") as response:
        index = (await response.json())["index"]
    assert scraped.value("citebot_index_passages") == index["passages"] == index["chunks"] > 0
    assert scraped.value("citebot_index_documents") == index["documents"] > 0
    built = scraped.value("citebot_index_version_timestamp_seconds")
    assert abs(time.time() - index["age_seconds"] - built) < 2
    assert scraped.value("citebot_index_backfill_remaining_passages") == 0


async def test_no_label_holds_a_user_a_channel_or_a_question(metered: Metered) -> None:
    metered.llm.script(GROUNDED)
    await metered.ask(IN_KB)
    await metered.ask(OUT_OF_KB)
    scraped = await metered.metrics()
    labels = {value for sample in scraped.samples for value in sample.labels.values()}
    assert labels.isdisjoint({ALICE, CHANNEL, REVIEW_CHANNEL, REVIEWER, IN_KB, OUT_OF_KB})
    for secret in (ALICE, CHANNEL, IN_KB, OUT_OF_KB, GROUNDED):
        assert secret not in scraped.text


async def until(
    read: Callable[[], Awaitable[Scrape]], holds: Callable[[Scrape], bool], within: float = WITHIN
) -> Scrape:
    """Scrape until ``holds``: syncs and index swaps run in the background."""
    started = time.monotonic()
    while not holds(scraped := await read()):
        if time.monotonic() - started > within:
            msg = f"metrics not as expected within {within} s:\n{scraped.text}"
            raise AssertionError(msg)
        await asyncio.sleep(0.05)
    return scraped


async def test_each_sync_is_counted_by_source_and_outcome_and_its_pages_indexed(
    slack_api: FakeSlackApi, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "welcome.md").write_text("# Welcome\n\nThe office opens at 9:00.\n", "utf-8")
    sources = tmp_path / "sources.toml"
    async with FakeConfluence() as confluence:
        confluence.add_page("HR", "Annual leave", "<p>Employees get 15 days of leave.</p>")
        confluence.fail("pages", status=401, times=1000)  # until healed: every sync fails
        sources.write_text(
            f'[sources.wiki]\nkind = "confluence-cloud"\nurl = "{confluence.cloud_url}"\n'
            f'spaces = ["HR"]\nemail = "{confluence_api.EMAIL}"\ntoken_env = "WIKI_TOKEN"\n',
            "utf-8",
        )
        env = bot_env(
            slack_api,
            DOCS_DIR=str(docs),
            INDEX_DIR=str(tmp_path / "index"),
            EMBEDDINGS="none",
            REFRESH_SECONDS="0",
            SYNC_SECONDS="1",
            SOURCES_FILE=str(sources),
            WIKI_TOKEN=confluence_api.API_TOKEN,
        )
        async with compose(env, with_review=False) as served:

            async def read() -> Scrape:
                return await scrape(served.http, served.url)

            failing = await until(
                read,
                lambda s: s.value("citebot_sync_runs_total", source="wiki", outcome="failed") >= 1,
            )
            assert failing.value("citebot_sync_runs_total", source="wiki", outcome="ok") == 0
            assert failing.value("citebot_index_documents") == 1  # welcome.md alone

            confluence.heal()
            synced = await until(
                read,
                lambda s: (
                    s.value("citebot_sync_runs_total", source="wiki", outcome="ok") >= 1
                    and s.value("citebot_index_documents") == 2
                ),
            )
            assert synced.value("citebot_sync_duration_seconds_count", source="wiki") >= 2
            assert synced.value("citebot_index_passages") > failing.value("citebot_index_passages")
            assert synced.value("citebot_index_version_timestamp_seconds") > failing.value(
                "citebot_index_version_timestamp_seconds"
            )


async def test_the_backfill_left_is_exported_until_every_vector_is_computed(
    slack_api: FakeSlackApi,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    e5_env: dict[str, str],
) -> None:
    # The backfill is held until released: the bot starts in its first minutes.
    monkeypatch.setattr(rag.serving.serve, "LEXICAL_FIRST_AT", 0)
    embeddings = HeldBackfill()
    HeldBackfill.release.clear()

    def pipeline(settings: Settings, reviewed: ReviewedAnswers) -> LivePipeline:
        return serve_pipeline(settings, redis=None, reviewed=reviewed, embeddings=embeddings)

    variables = bot_env(slack_api, **docs_env(tmp_path, "first", e5_env))
    try:
        async with compose(variables, pipeline=pipeline) as served:

            async def read() -> Scrape:
                return await scrape(served.http, served.url)

            lexical = await read()
            left = lexical.value("citebot_index_backfill_remaining_passages")
            assert 0 < left <= lexical.value("citebot_index_passages")
            HeldBackfill.release.set()
            # e5 over 46 passages at the lowest priority: a minute on a busy machine.
            done = lambda s: s.value("citebot_index_backfill_remaining_passages") == 0  # noqa: E731
            await until(read, done, within=120)
    finally:
        HeldBackfill.release.set()


async def test_feishu_questions_are_counted_under_their_platform(
    docs_index: Index, redis_area: RedisArea
) -> None:
    async with (
        FakeFeishuApi() as feishu,
        start_feishu(feishu, index=docs_index, redis=redis_area) as bot,
        aiohttp.ClientSession() as http,
    ):
        base = bot.events.url.removesuffix("/feishu/events")

        async def read() -> Scrape:
            return await scrape(http, base)

        assert not (await read()).has("citebot_questions_total", platform="slack")
        question, _ = await bot.ask_group(IN_KB)
        await bot.replies(question)
        counted = await until(
            read, lambda s: s.value("citebot_questions_total", platform="feishu") == 1
        )
        assert counted.value("citebot_questions_total", platform="feishu", outcome="answered") == 1
