"""Fixtures for the answer-core tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx2
import openai
import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tests.fakes.openai_fixture import openai_server
from tests.fakes.openai_server import FakeOpenAIServer

__all__ = ["openai_server"]  # re-exported so pytest finds the shared fixture


@pytest.fixture
async def chat_for_server(
    openai_server: FakeOpenAIServer,
) -> AsyncIterator[Callable[..., ChatOpenAI]]:
    """``ChatOpenAI`` aimed at the fake server, configured as production does (no own retries).

    Each model gets its own HTTP client, closed after the test, so no socket outlives it.
    """
    clients: list[httpx2.AsyncClient] = []

    def make(
        *, timeout: float = 2.0, base_url: str | None = None, api_key: str | None = None
    ) -> ChatOpenAI:
        client = openai.DefaultAsyncHttpxClient()
        clients.append(client)
        return ChatOpenAI(
            base_url=base_url or openai_server.base_url,
            api_key=SecretStr(api_key or openai_server.api_key),
            model="test-model",
            timeout=timeout,
            max_retries=0,
            temperature=0,
            http_async_client=client,
        )

    yield make
    for client in clients:
        await client.aclose()
