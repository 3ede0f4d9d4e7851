"""One deployment on several machines: each with its own copy of the documents (at its own
path) and its own INDEX_DIR, all on one Redis. A changed corpus is embedded once in total, not
once per machine, and every machine serves the new version; without Redis each machine embeds
for itself and still serves it.

The bots are composed as ``python -m bot`` composes them (see test_freshness.py); each gets an
embedder that counts the passages it embeds.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rag.ingest.loaders import load_folder
from rag.ingest.splitter import Splitter
from rag.search.embeddings import HashingEmbeddings
from rag.serving.refresh import index_builder
from rag.serving.shared_vectors import SharedVectors
from tests.fakes.redis_server import OwnRedis
from tests.fakes.slack_api import FakeSlackApi
from tests.redis_area import RedisArea
from tests.scenarios.harness import DOCS, RunningBot
from tests.scenarios.test_freshness import (
    PRICE,
    SERVED_WITHIN,
    CountingEmbeddings,
    ask,
    env,
    fresh_bot,
    reprice,
    until,
)

Machine = tuple[Path, Path]


@pytest.fixture
def machines(tmp_path: Path) -> tuple[Machine, Machine]:
    """Two machines' DOCS_DIR (same content, different paths) and INDEX_DIR."""

    def machine(name: str) -> Machine:
        docs = tmp_path / name / "docs"
        shutil.copytree(DOCS, docs)
        return docs, tmp_path / name / "index"

    return machine("a"), machine("b")


def deployed(machine: Machine) -> None:
    docs, index = machine
    index_builder(docs, index, embeddings=HashingEmbeddings(), min_score=None)()


def passages(docs: Path) -> set[str]:
    loaded, _ = load_folder(docs)
    return {chunk.vector_key for doc in loaded for chunk in Splitter().split(doc)}


def variables(slack: FakeSlackApi, machine: Machine, redis: RedisArea) -> dict[str, str]:
    docs, index = machine
    return env(slack, docs, index, **redis.env, REFRESH_SECONDS="1", MIN_SCORE="-1")


async def served(bot: RunningBot, health: str) -> str:
    async with bot.http.get(health) as response:
        state = (await response.json())["index"]
    return f"{state['mode']}:{state['version']}"


async def test_two_machines_embed_a_change_once_and_both_serve_it(
    slack_api: FakeSlackApi, machines: tuple[Machine, Machine], redis_area: RedisArea
) -> None:
    for machine in machines:
        deployed(machine)
    before = passages(machines[0][0])
    first, second = CountingEmbeddings(), CountingEmbeddings()
    async with (
        fresh_bot(variables(slack_api, machines[0], redis_area), first) as (bot_a, health_a),
        fresh_bot(variables(slack_api, machines[1], redis_area), second) as (bot_b, health_b),
    ):
        assert first.embedded == second.embedded == 0  # each loaded its own INDEX_DIR
        old = await served(bot_a, health_a)
        assert await served(bot_b, health_b) == old
        for docs, _ in machines:
            reprice(docs)  # a git pull on each machine
        changed = len(passages(machines[0][0]) - before)

        async def both_new() -> bool:
            seen = {await served(bot_a, health_a), await served(bot_b, health_b)}
            return len(seen) == 1 and old not in seen

        await until(both_new, 1 + SERVED_WITHIN)
        assert changed > 0
        assert sorted([first.embedded, second.embedded]) == [0, changed]
        assert "5200" in await ask(bot_a, slack_api, PRICE)
        assert "5200" in await ask(bot_b, slack_api, PRICE)


async def test_a_machine_joining_later_reads_every_vector_instead_of_embedding(
    slack_api: FakeSlackApi, machines: tuple[Machine, Machine], redis_area: RedisArea
) -> None:
    deployed(machines[0])
    first, joining = CountingEmbeddings(), CountingEmbeddings()
    async with fresh_bot(variables(slack_api, machines[0], redis_area), first):
        # Built before it served (no change since): it shares its vectors once it runs.
        corpus = len(passages(machines[0][0]))
        client = redis_area.client()
        key = SharedVectors(redis_area.guarded(), HashingEmbeddings().identity).key

        async def shared() -> bool:
            return bool(await client.hlen(key) == corpus)

        try:
            await until(shared, SERVED_WITHIN)
        finally:
            await client.aclose()
        later = variables(slack_api, machines[1], redis_area)
        async with fresh_bot(later, joining) as (bot_b, health_b):  # an empty INDEX_DIR

            async def full() -> bool:
                return (await served(bot_b, health_b)).startswith("full:")

            await until(full, SERVED_WITHIN)
            assert first.embedded == joining.embedded == 0
            assert "4800" in await ask(bot_b, slack_api, PRICE)


async def test_with_redis_down_a_machine_embeds_the_change_itself_and_serves_it(
    slack_api: FakeSlackApi, machines: tuple[Machine, Machine], redis_prefix: str
) -> None:
    for machine in machines:
        deployed(machine)
    redis = OwnRedis()  # killed below, so not the suite's
    redis.start()
    own = RedisArea(redis.url, redis_prefix)
    first, second = CountingEmbeddings(), CountingEmbeddings()
    try:
        async with (
            fresh_bot(variables(slack_api, machines[0], own), first) as (bot_a, health_a),
            fresh_bot(variables(slack_api, machines[1], own), second) as (bot_b, health_b),
        ):
            before = passages(machines[0][0])
            reprice(machines[0][0])  # machine a pulls first: builds and shares
            changed = len(passages(machines[0][0]) - before)

            async def a_new() -> bool:
                return "5200" in await ask(bot_a, slack_api, PRICE)

            await until(a_new, 1 + SERVED_WITHIN)
            redis.kill()
            reprice(machines[1][0])  # machine b pulls while Redis is down

            async def b_new() -> bool:
                return await served(bot_b, health_b) == await served(bot_a, health_a)

            await until(b_new, 1 + SERVED_WITHIN)
            assert first.embedded == second.embedded == changed > 0
            assert "5200" in await ask(bot_b, slack_api, PRICE)
    finally:
        redis.kill()
