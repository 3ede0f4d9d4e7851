"""``ChatOpenAI`` aimed at the fake OpenAI-compatible server, configured as production does."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import openai
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from tests.fakes.openai_server import FakeOpenAIServer


@asynccontextmanager
async def openai_model(
    server: FakeOpenAIServer, *, client_timeout: float = 1.0, base_url: str | None = None
) -> AsyncIterator[ChatOpenAI]:
    """No retries of its own (the Generator's policy retries); its HTTP client closed after."""
    client = openai.DefaultAsyncHttpxClient()
    try:
        yield ChatOpenAI(
            base_url=base_url or server.base_url,
            api_key=SecretStr(server.api_key),
            model="test-model",
            timeout=client_timeout,
            max_retries=0,
            temperature=0,
            http_async_client=client,
        )
    finally:
        await client.aclose()
