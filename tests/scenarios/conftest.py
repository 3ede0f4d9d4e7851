"""Fixtures for scenario tests: the fake Slack Web API, the sample index (built once) and a
redis-server of the suite's own for the review scenarios."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from redis.asyncio import Redis

from rag.search.index import Index
from tests.fakes.redis_server import OwnRedis
from tests.fakes.slack_fixture import slack_api
from tests.scenarios.harness import sample_index

__all__ = ["slack_api"]  # re-exported so pytest finds the shared fixture


@pytest.fixture(scope="session")
def docs_index() -> Index:
    """The sample docs/ indexed with test-speed embeddings (immutable, shared)."""
    return sample_index()


@pytest.fixture(scope="session")
def scenario_redis() -> Iterator[OwnRedis]:
    server = OwnRedis()
    server.start()
    yield server
    server.kill()


@pytest.fixture
async def own_redis_url(scenario_redis: OwnRedis) -> str:
    """An empty Redis only this test uses, so the app keeps the key names ``python -m bot`` uses
    (no per-test prefix) and may be flushed as a whole."""
    client = Redis.from_url(scenario_redis.url)
    await client.flushdb()
    await client.aclose()
    return scenario_redis.url
