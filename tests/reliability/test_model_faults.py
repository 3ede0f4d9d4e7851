"""Chat-model faults through the real Pipeline: an answer within the deadline or one typed error.

The model is ``ChatOpenAI`` (own retries off, as production) against the fake OpenAI-compatible
server; the Generator retries with a recorded sleep and a fake clock, so every wait is asserted
and nothing sleeps. After any failure the same question reaches the model again: nothing
failed is cached.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx2
import openai
import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr
from tenacity.wait import wait_exponential

from rag.cache.answers import MemoryCache
from rag.generate.llm import GenerationError, Generator
from rag.generate.retry import RetryPolicy
from rag.pipeline import Pipeline
from rag.results import Answer, Refusal, Unverified
from rag.search.index import Index
from tests.fakes.clock import FakeClock
from tests.fakes.openai_server import (
    Delay,
    DropConnection,
    FakeOpenAIServer,
    HttpError,
    MalformedJson,
    Reply,
    Step,
    unused_base_url,
)
from tests.reliability.corpus import CITED, IN_KB, OUT_OF_KB, small_index, threshold

ATTEMPTS = 3
DEADLINE = 30.0
CLIENT_TIMEOUT = 1.0
"""Seconds; generous so a slow CI machine never turns a scripted 429 into a timeout."""
MakePipeline = Callable[..., Pipeline]


@pytest.fixture(scope="module")
def index() -> Index:
    return small_index()


@pytest.fixture
def fake_time() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def make_pipeline(
    openai_server: FakeOpenAIServer, index: Index, fake_time: FakeClock
) -> AsyncIterator[MakePipeline]:
    clients: list[httpx2.AsyncClient] = []

    def make(*, base_url: str | None = None) -> Pipeline:
        client = openai.DefaultAsyncHttpxClient()
        clients.append(client)
        model = ChatOpenAI(
            base_url=base_url or openai_server.base_url,
            api_key=SecretStr(openai_server.api_key),
            model="test-model",
            timeout=CLIENT_TIMEOUT,
            max_retries=0,
            temperature=0,
            http_async_client=client,
        )
        policy = RetryPolicy(
            max_attempts=ATTEMPTS,
            deadline_seconds=DEADLINE,
            backoff=wait_exponential(multiplier=1, max=20),
            sleep=fake_time.sleep,
            clock=fake_time.clock,
        )
        return Pipeline(
            index=index,
            generator=Generator(model, policy),
            cache=MemoryCache(),
            min_score=threshold(index),
            top_k=3,
        )

    yield make
    for client in clients:
        await client.aclose()


@pytest.mark.parametrize(
    ("fault", "waits"),
    [
        (HttpError(429, retry_after="2"), [2.0]),
        (HttpError(429), [1.0]),
        (HttpError(500), [1.0]),
        (HttpError(502), [1.0]),
        (HttpError(503, retry_after="5"), [5.0]),
        (Delay(CLIENT_TIMEOUT * 5), [1.0]),
        (DropConnection(), [1.0]),
        (Reply(""), [1.0]),
    ],
    ids=["429-retry-after", "429", "500", "502", "503-retry-after", "timeout", "drop", "empty"],
)
async def test_a_transient_fault_then_a_reply_is_an_answer_after_the_configured_wait(
    openai_server: FakeOpenAIServer,
    make_pipeline: MakePipeline,
    fake_time: FakeClock,
    fault: Step,
    waits: list[float],
) -> None:
    openai_server.script(fault, CITED)
    result = await make_pipeline().answer(IN_KB)
    assert isinstance(result, Answer)
    assert result.text == CITED
    assert len(openai_server.requests) == 2
    assert fake_time.waits == waits


@pytest.mark.parametrize(
    "fault",
    [HttpError(429), HttpError(500), HttpError(502), HttpError(503), Delay(CLIENT_TIMEOUT * 5)],
    ids=["429", "500", "502", "503", "timeout"],
)
async def test_a_fault_that_persists_is_one_typed_error_after_every_attempt_and_is_not_cached(
    openai_server: FakeOpenAIServer, make_pipeline: MakePipeline, fake_time: FakeClock, fault: Step
) -> None:
    pipeline = make_pipeline()
    openai_server.script(*[fault] * ATTEMPTS)
    with pytest.raises(GenerationError) as failure:
        await pipeline.answer(IN_KB)
    assert failure.value.retryable
    assert failure.value.attempts == ATTEMPTS
    assert fake_time.waits == [1.0, 2.0]
    assert fake_time.now - 1000.0 < DEADLINE
    openai_server.script(CITED)
    assert isinstance(await pipeline.answer(IN_KB), Answer)
    assert len(openai_server.requests) == ATTEMPTS + 1


async def test_connection_refused_is_retried_then_one_typed_error(
    make_pipeline: MakePipeline, fake_time: FakeClock
) -> None:
    with pytest.raises(GenerationError) as failure:
        await make_pipeline(base_url=unused_base_url()).answer(IN_KB)
    assert failure.value.reason == "connection error"
    assert failure.value.attempts == ATTEMPTS
    assert fake_time.waits == [1.0, 2.0]


@pytest.mark.parametrize(
    ("fault", "reason"),
    [
        (MalformedJson(), "malformed response"),
        (Reply("", finish_reason="content_filter"), "empty reply"),
        (HttpError(400), "HTTP 400"),
    ],
    ids=["malformed-json", "empty-filtered", "400"],
)
async def test_a_permanent_fault_is_not_retried_and_the_next_ask_calls_the_model_again(
    openai_server: FakeOpenAIServer,
    make_pipeline: MakePipeline,
    fake_time: FakeClock,
    fault: Step,
    reason: str,
) -> None:
    pipeline = make_pipeline()
    openai_server.script(fault)
    with pytest.raises(GenerationError) as failure:
        await pipeline.answer(IN_KB)
    assert (failure.value.reason, failure.value.retryable) == (reason, False)
    assert fake_time.waits == []
    openai_server.script(CITED)
    assert isinstance(await pipeline.answer(IN_KB), Answer)
    assert len(openai_server.requests) == 2


async def test_waits_are_capped_and_none_is_started_that_would_cross_the_deadline(
    openai_server: FakeOpenAIServer, make_pipeline: MakePipeline, fake_time: FakeClock
) -> None:
    openai_server.script(*[HttpError(429, retry_after="3600")] * ATTEMPTS)
    with pytest.raises(GenerationError) as failure:
        await make_pipeline().answer(IN_KB)
    assert fake_time.waits == [20.0]  # the cap; a second 20 s would end past 30 s
    assert failure.value.attempts == 2
    assert failure.value.reason == "HTTP 429"


async def test_a_reply_that_never_cites_is_unverified_and_not_cached(
    openai_server: FakeOpenAIServer, make_pipeline: MakePipeline
) -> None:
    pipeline = make_pipeline()
    # No source holds it, so none is given to it (rag.check.attribution).
    openai_server.script(*["口语课全部免费，随时可以换老师。"] * 2)
    first = await pipeline.answer(IN_KB)
    second = await pipeline.answer(IN_KB)
    assert isinstance(first, Unverified)
    assert isinstance(second, Unverified)
    assert "no_citation" in {p.kind for p in first.problems}
    assert len(openai_server.requests) == 2  # not cached: the model is asked each time


async def test_an_out_of_kb_question_never_reaches_a_failing_model(
    openai_server: FakeOpenAIServer, make_pipeline: MakePipeline
) -> None:
    openai_server.script(HttpError(503))
    result = await make_pipeline().answer(OUT_OF_KB)
    assert isinstance(result, Refusal)
    assert openai_server.requests == []
