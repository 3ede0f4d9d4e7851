"""Two bot processes on one Qdrant collection and one Redis: they answer, re-index and honour
scopes together, and neither holds the passages' vectors.

Local mode locks its folder to one process, so the collection is served by a fake Qdrant
server on 127.0.0.1 (tests/fakes/qdrant_server.py: the REST endpoints qdrant-client uses,
answered by qdrant-client's own engine); each bot reaches it over HTTP with a client of its
own, as it would a real server. Each bot is composed as ``python -m bot`` composes it, with its
own copy of the documents and its own INDEX_DIR, on one Redis (build lock, announcements).
"""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from rag.ingest.loaders import load_folder
from rag.ingest.splitter import Splitter
from rag.reviewed.answers import ReviewedAnswers
from rag.scopes.file import load_scopes_file
from rag.serving.serve import serve_pipeline
from rag.settings import Settings, secret
from rag.storage.redis_guard import GuardedRedis
from tests.fakes.qdrant_server import FakeQdrantServer
from tests.fakes.slack_api import BOT_USER_ID, FakeSlackApi
from tests.redis_area import RedisArea
from tests.scenarios.harness import DOCS, RunningBot, compose, envelope
from tests.scenarios.test_freshness import (
    PRICE,
    SERVED_WITHIN,
    CountingEmbeddings,
    env,
    reprice,
    until,
)

HR_CHANNEL, PUBLIC_CHANNEL = "C0HR00001", "C0PUB0001"
SCOPES = f"""\
[scopes]
public = ["*.md", "it/**"]
hr = ["hr/**"]

[channels]
{HR_CHANNEL} = ["hr", "public"]
{PUBLIC_CHANNEL} = "public"
"""
LEAVE = "How many days of annual leave do I get?"
Machine = tuple[Path, Path]


@pytest.fixture
def qdrant_server() -> Iterator[FakeQdrantServer]:
    server = FakeQdrantServer()
    server.start()
    yield server
    server.close()


@pytest.fixture
def machines(tmp_path: Path) -> tuple[Machine, Machine]:
    def machine(name: str) -> Machine:
        docs = tmp_path / name / "docs"
        shutil.copytree(DOCS, docs)
        return docs, tmp_path / name / "index"

    return machine("a"), machine("b")


@asynccontextmanager
async def qdrant_bot(variables: dict[str, str], embeddings: Any) -> AsyncIterator[RunningBot]:
    """The composed bot over a live pipeline with the scopes file (as ``python -m bot``)."""
    settings = Settings.from_env(variables)
    url = secret(settings.redis_url)
    assert url is not None
    redis = GuardedRedis(Redis.from_url(url), key_prefix=settings.redis_key_prefix)
    assert settings.scopes_file is not None
    catalog = load_scopes_file(settings.scopes_file).catalog

    def pipeline(settings: Settings, reviewed: ReviewedAnswers) -> Any:
        return serve_pipeline(
            settings, redis=redis, reviewed=reviewed, embeddings=embeddings, scopes=catalog
        )

    try:
        async with compose(variables, pipeline=pipeline, with_review=False) as served:
            yield RunningBot(served.url, served.http, served.handled)
    finally:
        await redis.aclose()


async def ask(bot: RunningBot, slack: FakeSlackApi, channel: str, question: str) -> str:
    ts = f"{time.time():.6f}"
    event = {
        "type": "app_mention",
        "user": "U0ALICE",
        "text": f"<@{BOT_USER_ID}> {question}",
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
    }
    await bot.send(envelope(event, event_id=f"Ev{uuid.uuid4().hex[:12]}"))
    await bot.idle()
    await slack.wait_until(lambda: bool(slack.thread(channel, ts)), within=10)
    return "\n".join(m.text + str(m.blocks) for m in slack.thread(channel, ts))


async def index_state(bot: RunningBot) -> dict[str, Any]:
    async with bot.http.get(f"{bot.url}/healthz") as response:
        state: dict[str, Any] = (await response.json())["index"]
    return state


def passages(docs: Path) -> set[str]:
    loaded, _ = load_folder(docs)
    return {chunk.vector_key for doc in loaded for chunk in Splitter().split(doc)}


async def test_two_bots_on_one_collection_answer_reindex_and_honour_scopes_together(
    slack_api: FakeSlackApi,
    machines: tuple[Machine, Machine],
    redis_area: RedisArea,
    qdrant_server: FakeQdrantServer,
    tmp_path: Path,
) -> None:
    scopes = tmp_path / "scopes.toml"
    scopes.write_text(SCOPES, "utf-8")

    def variables(machine: Machine) -> dict[str, str]:
        docs, index = machine
        return env(
            slack_api, docs, index, **redis_area.env, REFRESH_SECONDS="1",
            MIN_SCORE="-1", SCOPES_FILE=str(scopes), VECTOR_STORE="qdrant",
            QDRANT_URL=qdrant_server.url, QDRANT_COLLECTION="handbook",
        )  # fmt: skip

    first, second = CountingEmbeddings(), CountingEmbeddings()
    corpus = len(passages(machines[0][0]))
    async with qdrant_bot(variables(machines[0]), first) as bot_a:

        async def full(bot: RunningBot) -> bool:
            return (await index_state(bot))["mode"] == "full"

        await until(lambda: full(bot_a), SERVED_WITHIN)  # its backfill filled the collection
        assert first.embedded == corpus
        async with qdrant_bot(variables(machines[1]), second) as bot_b:
            state_b = await index_state(bot_b)
            assert state_b["mode"] == "full"  # the collection already held its version
            assert second.embedded == 0
            assert state_b["vector_store"] | {"state": "ok"} == state_b["vector_store"]
            assert state_b["vector_store"]["collection"] == "handbook"
            old = state_b["version"]
            assert (await index_state(bot_a))["version"] == old

            for bot in (bot_a, bot_b):
                assert "4800" in await ask(bot, slack_api, PUBLIC_CHANNEL, PRICE)
                assert "annual-leave" in await ask(bot, slack_api, HR_CHANNEL, LEAVE)
                assert "annual-leave" not in await ask(bot, slack_api, PUBLIC_CHANNEL, LEAVE)

            before = passages(machines[0][0])
            for docs, _ in machines:
                reprice(docs)  # a git pull on each machine
            changed = len(passages(machines[0][0]) - before)

            async def both_new() -> bool:
                seen = {
                    (await index_state(bot_a))["version"],
                    (await index_state(bot_b))["version"],
                }
                return len(seen) == 1 and old not in seen

            await until(both_new, 1 + SERVED_WITHIN)
            assert changed > 0
            assert first.embedded + second.embedded == corpus + changed  # the change once
            for bot in (bot_a, bot_b):
                assert "5200" in await ask(bot, slack_api, PUBLIC_CHANNEL, PRICE)
            served = (await index_state(bot_a))["passages"]

            qdrant_server.stop()  # an outage: answers go on, lexically, and /healthz says so
            # A question not asked before (a cached answer would not reach the store).
            assert "5200" in await ask(bot_b, slack_api, PUBLIC_CHANNEL, "流利级课程多少钱？")
            async with bot_b.http.get(f"{bot_b.url}/healthz") as response:
                health = await response.json()
            assert health["status"] == "degraded"
            assert health["index"]["vector_store"]["state"] == "unreachable"
            qdrant_server.start()
    # Neither process kept vectors: no embedding cache was written under either INDEX_DIR.
    for _, index_dir in machines:
        assert not list(index_dir.glob("embeddings-*.npz"))
    # The replaced passages left the collection: it holds exactly the served ones.
    assert qdrant_server.engine.count("handbook").count == served
