"""``Pipeline.aclose`` closes the chat model's HTTP client: no keep-alive socket to the model's
endpoint outlives the pipeline (they surfaced as "unclosed socket" ResourceWarnings)."""

from __future__ import annotations

import gc
import warnings
from typing import Any

from pydantic import SecretStr

from rag.assemble import pipeline_around
from rag.results import Answer
from rag.search.index import Index
from rag.settings import Settings
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.rag.test_pipeline import IN_KB, index, threshold

__all__ = ["index", "threshold"]

REPLY = "口语课共分四个级别[1]。"


def _settings(server: FakeOpenAIServer, threshold: float, **extra: Any) -> Settings:
    return Settings(
        llm_base_url=server.base_url,
        llm_api_key=SecretStr(server.api_key),
        llm_model="test-model",
        min_score=threshold,
        **extra,
    )


def _client(pipeline: Any) -> Any:
    """The httpx client under the model's OpenAI client (what holds the sockets)."""
    return pipeline.generator.model.root_async_client._client


async def test_closing_the_pipeline_closes_its_models_sockets(
    index: Index, threshold: float, openai_server: FakeOpenAIServer
) -> None:
    openai_server.script(Reply(REPLY))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pipeline = pipeline_around(index, _settings(openai_server, threshold), redis=None)
        assert isinstance(await pipeline.answer(IN_KB), Answer)  # a keep-alive socket now
        client = _client(pipeline)
        assert not client.is_closed
        await pipeline.aclose()
        assert client.is_closed
        del pipeline, client
        gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


async def test_each_pipeline_closes_only_its_own_model_client(
    index: Index, threshold: float, openai_server: FakeOpenAIServer
) -> None:
    """ChatOpenAI's default client is shared by every model with the same endpoint and
    timeout: closing that one would break the other pipelines of the process."""
    openai_server.script(Reply(REPLY), Reply(REPLY))
    settings = _settings(openai_server, threshold, checker_model_judge=False)
    first = pipeline_around(index, settings, redis=None)
    second = pipeline_around(index, settings, redis=None)
    assert _client(first) is not _client(second)
    await first.aclose()
    assert isinstance(await second.answer(IN_KB), Answer)
    await second.aclose()


async def test_the_judges_model_client_is_closed_too(
    index: Index, threshold: float, openai_server: FakeOpenAIServer
) -> None:
    pipeline = pipeline_around(
        index, _settings(openai_server, threshold, checker_model_judge=True), redis=None
    )
    assert pipeline.judge is not None
    judge_client = pipeline.judge.generator.model.root_async_client._client  # type: ignore[attr-defined]
    await pipeline.aclose()
    assert judge_client.is_closed
