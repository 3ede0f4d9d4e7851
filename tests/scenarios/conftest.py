"""Fixtures for scenario tests: the fake Slack Web API and the sample index (built once)."""

from __future__ import annotations

import pytest

from rag.search.index import Index
from tests.fakes.slack_fixture import slack_api
from tests.scenarios.harness import sample_index

__all__ = ["slack_api"]  # re-exported so pytest finds the shared fixture


@pytest.fixture(scope="session")
def docs_index() -> Index:
    """The sample docs/ indexed with test-speed embeddings (immutable, shared)."""
    return sample_index()
