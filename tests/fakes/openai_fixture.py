"""The ``openai_server`` fixture: a started :class:`FakeOpenAIServer`, closed after the test.

Register it where it is needed with ``from tests.fakes.openai_fixture import openai_server``
in a conftest.py (tests/rag/conftest.py does).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
async def openai_server() -> AsyncIterator[FakeOpenAIServer]:
    async with FakeOpenAIServer() as server:
        yield server
