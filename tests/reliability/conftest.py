"""Fixtures for the fault-injection and abuse suite: fakes for every neighbour, own Redis."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rag.search.index import Index
from tests.fakes.openai_fixture import openai_server
from tests.fakes.redis_server import OwnRedis
from tests.fakes.slack_fixture import slack_api
from tests.scenarios.harness import sample_index

__all__ = ["openai_server", "slack_api"]  # re-exported so pytest finds the shared fixtures


@pytest.fixture(scope="session")
def docs_index() -> Index:
    """The sample docs/ indexed with test-speed embeddings (immutable, shared)."""
    return sample_index()


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    """A redis-server only this test uses; killed afterwards whatever state it is in."""
    server = OwnRedis()
    server.start()
    yield server
    server.kill()
