"""Fixtures for scenario tests: the fake Slack Web API, the fake Feishu Open API with its review
group, the sample index (built once) and the
real e5 index of docs/ (built once). Redis is the suite's (tests/conftest.py ``redis_area``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from rag.assemble import open_index
from rag.search.gate import E5
from rag.search.index import Index
from rag.settings import Settings
from tests.fakes.feishu_api import FakeFeishuApi
from tests.fakes.slack_fixture import slack_api
from tests.scenarios.feishu_harness import REVIEW_CHAT, REVIEWER
from tests.scenarios.harness import DOCS, sample_index

__all__ = ["slack_api"]  # re-exported so pytest finds the shared fixture


@pytest.fixture(scope="session")
def docs_index() -> Index:
    """The sample docs/ indexed with test-speed embeddings (immutable, shared)."""
    return sample_index()


@pytest.fixture(scope="session")
def e5_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a bot over docs/ with the bundled e5 embedder and no MIN_SCORE, so
    the shipped threshold gates. The index is built here once per session (~10 s on a quiet
    machine) in a fresh directory (no calibration file beside it); each app then opens it from
    INDEX_DIR, as ``python -m bot`` does."""
    env = {
        "EMBEDDINGS": "e5",
        "DOCS_DIR": str(DOCS),
        "INDEX_DIR": str(tmp_path_factory.mktemp("e5-index")),
    }
    index = open_index(Settings.from_env(env))
    assert index.min_score == E5.threshold, "the shipped e5 threshold"
    return env


@pytest.fixture
async def feishu() -> AsyncIterator[FakeFeishuApi]:
    """The fake Feishu Open API, its review group holding the reviewer."""
    async with FakeFeishuApi() as fake:
        fake.chat_members[REVIEW_CHAT] = [REVIEWER]
        yield fake
