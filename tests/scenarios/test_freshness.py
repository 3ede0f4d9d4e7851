"""The running bot follows its documents, over signed HTTP as Slack drives it.

The app is composed as ``python -m bot`` does, with the pipeline ``rag.serve_pipeline`` makes
(index built from DOCS_DIR into INDEX_DIR, refresher running beside the app); questions go in
as signed mentions and the answers are read from the fake Slack Web API.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import threading
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from redis.asyncio import Redis

import rag.serving.serve
from rag import serve_pipeline
from rag.reviewed.answers import ReviewedAnswers
from rag.search.embeddings import HashingEmbeddings
from rag.serving.refresh import index_builder
from rag.settings import Settings, secret
from rag.storage.redis_guard import GuardedRedis
from tests.fakes.slack_api import FakeSlackApi
from tests.redis_area import RedisArea
from tests.scenarios.harness import (
    CHANNEL,
    DOCS,
    RunningBot,
    bot_env,
    compose,
    envelope,
    mention,
)

PRICE = "流利级的课程费是多少？"
LEAVE = "How many days of annual leave do I get?"
SERVED_WITHIN = 10.0


class CountingEmbeddings(Embeddings):
    """Test-speed embeddings that count the passages they embed."""

    def __init__(self) -> None:
        self.inner = HashingEmbeddings()
        self.identity = self.inner.identity
        self.embedded = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    return docs, tmp_path / "index"


def env(slack: FakeSlackApi, docs: Path, index: Path, **extra: str) -> dict[str, str]:
    variables = {
        "DOCS_DIR": str(docs),
        "INDEX_DIR": str(index),
        "EMBEDDINGS": "none",
        "REFRESH_SECONDS": "0",
    }
    return bot_env(slack, **{**variables, **extra})


@asynccontextmanager
async def fresh_bot(
    variables: dict[str, str], embeddings: Any = None
) -> AsyncIterator[tuple[RunningBot, str]]:
    """The composed bot over a live pipeline; yields it and its /healthz URL."""
    settings = Settings.from_env(variables)
    url = secret(settings.redis_url)
    redis = None
    if url is not None:
        redis = GuardedRedis(Redis.from_url(url), key_prefix=settings.redis_key_prefix)
    extra = {} if embeddings is None else {"embeddings": embeddings}

    def pipeline(settings: Settings, reviewed: ReviewedAnswers) -> Any:
        return serve_pipeline(settings, redis=redis, reviewed=reviewed, **extra)

    try:
        async with compose(variables, pipeline=pipeline, with_review=False) as served:
            yield RunningBot(served.url, served.http, served.handled), f"{served.url}/healthz"
    finally:
        if redis is not None:
            await redis.aclose()


async def ask(bot: RunningBot, slack: FakeSlackApi, question: str) -> str:
    # Unique ids: with REDIS_URL the dedupe of an earlier run would take a repeated one as seen.
    event = mention(question, ts=f"{time.time():.6f}")
    await bot.send(envelope(event, event_id=f"Ev{uuid.uuid4().hex[:12]}"))

    await bot.idle()  # the listener has run: the reply is posted
    await slack.wait_until(lambda: bool(slack.thread(CHANNEL, event["ts"])), within=10)
    return "\n".join(message.text for message in slack.thread(CHANNEL, event["ts"]))


async def rag_index(docs: Path, index: Path) -> float:
    """``python -m rag index`` against the bot's folders; returns when it finished."""
    variables = {**os.environ, "DOCS_DIR": str(docs), "INDEX_DIR": str(index), "EMBEDDINGS": "none"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "rag", "index", env=variables, stdout=asyncio.subprocess.DEVNULL
    )
    assert await process.wait() == 0
    return time.monotonic()


async def until(check: Any, within: float, every: float = 0.3) -> float:
    """Seconds until ``await check()`` is true (polling), else AssertionError."""
    started = time.monotonic()
    while not await check():
        if time.monotonic() - started > within:
            msg = f"not within {within} s"
            raise AssertionError(msg)
        await asyncio.sleep(every)
    return time.monotonic() - started


def reprice(docs: Path) -> None:
    courses = docs / "courses.md"
    courses.write_text(courses.read_text(encoding="utf-8").replace("4800", "5200"), "utf-8")


async def test_an_edit_and_rag_index_are_answered_within_10_s_without_a_restart(
    slack_api: FakeSlackApi, folders: tuple[Path, Path]
) -> None:
    docs, index = folders
    async with fresh_bot(env(slack_api, docs, index)) as (bot, _):
        assert "4800" in await ask(bot, slack_api, PRICE)
        reprice(docs)
        await rag_index(docs, index)

        async def new_figure() -> bool:
            return "5200" in await ask(bot, slack_api, PRICE)

        await until(new_figure, SERVED_WITHIN)


async def test_a_deleted_document_stops_being_cited(
    slack_api: FakeSlackApi, folders: tuple[Path, Path]
) -> None:
    docs, index = folders
    async with fresh_bot(env(slack_api, docs, index)) as (bot, _):
        assert "15 working days" in await ask(bot, slack_api, LEAVE)
        (docs / "hr" / "annual-leave.md").unlink()
        await rag_index(docs, index)

        async def forgotten() -> bool:
            return "15 working days" not in await ask(bot, slack_api, LEAVE)

        await until(forgotten, SERVED_WITHIN)
        buttons = [
            element["value"]
            for message in slack_api.messages
            if message.edits and message is slack_api.messages[-1]
            for block in message.blocks
            if block["type"] == "actions"
            for element in block["elements"]
        ]
        assert not any("annual-leave.md" in value for value in buttons)


async def test_an_edit_with_no_command_is_answered_after_the_next_scan(
    slack_api: FakeSlackApi, folders: tuple[Path, Path]
) -> None:
    docs, index = folders
    async with fresh_bot(env(slack_api, docs, index, REFRESH_SECONDS="1")) as (bot, health):
        assert "4800" in await ask(bot, slack_api, PRICE)
        reprice(docs)
        edited = time.monotonic()

        async def new_figure() -> bool:
            return "5200" in await ask(bot, slack_api, PRICE)

        await until(new_figure, 1 + SERVED_WITHIN)
        async with bot.http.get(health) as response:
            state = (await response.json())["index"]
        assert state["last_refresh"]["trigger"] == "docs changed"
        assert state["last_refresh"]["outcome"] == "swapped"
        assert state["mode"] == "full"
        assert time.monotonic() - edited < 1 + SERVED_WITHIN


async def test_two_processes_on_one_redis_embed_a_change_once_and_both_serve_it(
    slack_api: FakeSlackApi, folders: tuple[Path, Path], redis_area: RedisArea
) -> None:
    docs, index = folders
    index_builder(docs, index, embeddings=HashingEmbeddings(), min_score=None)()  # deployed
    variables = env(slack_api, docs, index, **redis_area.env, REFRESH_SECONDS="1", MIN_SCORE="-1")
    first, second = CountingEmbeddings(), CountingEmbeddings()
    async with (
        fresh_bot(variables, first) as (bot_a, health_a),
        fresh_bot(variables, second) as (bot_b, health_b),
    ):
        assert first.embedded == second.embedded == 0  # both loaded what was built
        versions: list[str] = []
        for health in (health_a, health_b):
            async with bot_a.http.get(health) as response:
                versions.append((await response.json())["index"]["version"])
        reprice(docs)

        async def both_new() -> bool:
            seen = []
            for health in (health_a, health_b):
                async with bot_a.http.get(health) as response:
                    seen.append((await response.json())["index"]["version"])
            return len(set(seen)) == 1 and seen[0] != versions[0]

        await until(both_new, 1 + SERVED_WITHIN)
        assert sorted([first.embedded, second.embedded])[0] == 0
        assert first.embedded + second.embedded > 0  # the changed passages, embedded once
        assert "5200" in await ask(bot_a, slack_api, PRICE)
        assert "5200" in await ask(bot_b, slack_api, PRICE)


class GatedEmbeddings(CountingEmbeddings):
    """The backfill (its threads are named ``citebot-…``) embeds only once the test opens the
    gate: the dense half takes "long". A question's candidates are embedded at once, on
    demand, and not counted."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not threading.current_thread().name.startswith("citebot-"):
            return self.inner.embed_documents(texts)
        assert self.gate.wait(30), "the test never opened the gate"
        return super().embed_documents(texts)


async def test_a_bot_on_a_folder_with_no_index_answers_lexically_at_once_then_at_full_quality(
    slack_api: FakeSlackApi, folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/ is small enough to be embedded before the first answer: as for a large folder.
    monkeypatch.setattr(rag.serving.serve, "LEXICAL_FIRST_AT", 0)
    docs, index = folders
    embeddings = GatedEmbeddings()
    started = time.monotonic()
    async with fresh_bot(env(slack_api, docs, index), embeddings) as (bot, health):
        reply = await ask(bot, slack_api, PRICE)
        assert "4800" in reply  # answered from the lexical index, with its own threshold
        assert time.monotonic() - started < 30
        async with bot.http.get(health) as response:
            state = (await response.json())["index"]
        assert state["mode"] == "lexical"
        # The backfill embedded nothing yet: what is done is what the question's candidates
        # handed over (none, when they reached the cache before the backfill counted).
        assert state["backfill"]["done"] < state["backfill"]["total"]
        assert embeddings.embedded == 0

        embeddings.gate.set()

        async def full() -> bool:
            async with bot.http.get(health) as response:
                return (await response.json())["index"]["mode"] == "full"  # type: ignore[no-any-return]

        await until(full, SERVED_WITHIN)
        async with bot.http.get(health) as response:
            state = (await response.json())["index"]
        # Done counts what the question's candidates handed over too (not embedded again).
        assert state["backfill"]["done"] == state["backfill"]["total"] >= embeddings.embedded
        assert state["last_refresh"]["trigger"] == "backfill"
        assert (index / "manifest.json").exists()  # the next start loads it, embedding nothing


def test_a_full_index_first_start_embeds_everything_before_it_returns(
    folders: tuple[Path, Path],
) -> None:
    docs, index = folders
    embeddings = CountingEmbeddings()
    settings = Settings.from_env({"DOCS_DIR": str(docs), "INDEX_DIR": str(index)})

    live = serve_pipeline(settings, redis=None, embeddings=embeddings, full_index_first=True)

    assert live.holder.state.mode == "full"
    assert embeddings.embedded > 0
