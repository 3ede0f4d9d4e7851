"""Fixtures of the Qdrant tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.qdrant_fixture import qdrant_vector_store
from tests.fakes.qdrant_server import FakeQdrantServer

__all__ = ["qdrant_vector_store"]  # re-exported so pytest finds it


@pytest.fixture
def qdrant_server() -> Iterator[FakeQdrantServer]:
    server = FakeQdrantServer()
    server.start()
    yield server
    server.close()
