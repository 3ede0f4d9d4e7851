from __future__ import annotations

import logging
from collections.abc import Callable
from email.utils import format_datetime

import openai
import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr
from tenacity import AsyncRetrying, RetryCallState
from tenacity.wait import wait_exponential

from rag.assemble import (
    chat_model_from_settings,
    generator_from_settings,
    similarity_from_settings,
)
from rag.generate.extractive import ExtractiveChatModel
from rag.generate.llm import NO_API_KEY, GenerationError, Generator
from rag.generate.prompt import build_messages
from rag.generate.retry import RetryPolicy, default_backoff
from rag.search.embeddings import E5Embeddings
from rag.settings import Settings
from tests.fakes.clock import FakeClock
from tests.fakes.openai_server import (
    Delay,
    DropConnection,
    FakeOpenAIServer,
    HttpError,
    MalformedJson,
    Reply,
    unused_base_url,
)
from tests.rag.factories import policy_hits
from tests.rag.generate.test_retry import NOW

MakeChat = Callable[..., ChatOpenAI]
MESSAGES = build_messages("流利级原价多少钱？", policy_hits())
ANSWER = "流利级原价 4800 元[1]。"


@pytest.fixture
def fake_time() -> FakeClock:
    return FakeClock()


def generator(
    model: ChatOpenAI, fake_time: FakeClock, *, attempts: int = 4, deadline: float = 60.0
) -> Generator:
    policy = RetryPolicy(
        max_attempts=attempts,
        deadline_seconds=deadline,
        backoff=wait_exponential(multiplier=1, max=20),
        sleep=fake_time.sleep,
        clock=fake_time.clock,
        now=lambda: NOW,
    )
    return Generator(model, policy)


async def test_rate_limit_then_success_waits_as_long_as_retry_after_says(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock
) -> None:
    openai_server.script(HttpError(429, retry_after="3"), ANSWER)
    text = await generator(chat_for_server(), fake_time).generate(MESSAGES)
    assert text == ANSWER
    assert len(openai_server.requests) == 2
    assert fake_time.waits == [3.0]


async def test_rate_limit_without_retry_after_backs_off_exponentially(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock
) -> None:
    openai_server.script(HttpError(429), HttpError(429), ANSWER)
    assert await generator(chat_for_server(), fake_time).generate(MESSAGES) == ANSWER
    assert fake_time.waits == [1.0, 2.0]


@pytest.mark.parametrize("status", [500, 502, 503])
async def test_server_errors_are_retried(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock, status: int
) -> None:
    openai_server.script(HttpError(status), ANSWER)
    assert await generator(chat_for_server(), fake_time).generate(MESSAGES) == ANSWER
    assert len(openai_server.requests) == 2


async def test_timeouts_and_dropped_connections_are_retried(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock
) -> None:
    openai_server.script(Delay(2.0), DropConnection(), ANSWER)
    text = await generator(chat_for_server(timeout=0.2), fake_time).generate(MESSAGES)
    assert text == ANSWER
    assert len(openai_server.requests) == 3
    assert fake_time.waits == [1.0, 2.0]


async def test_connection_refused_is_retried_then_fails_with_one_error(
    chat_for_server: MakeChat, fake_time: FakeClock
) -> None:
    model = chat_for_server(base_url=unused_base_url())
    with pytest.raises(GenerationError) as raised:
        await generator(model, fake_time, attempts=3).generate(MESSAGES)
    error = raised.value
    assert (error.reason, error.retryable, error.attempts) == ("connection error", True, 3)
    assert isinstance(error.__cause__, openai.APIConnectionError)
    assert fake_time.waits == [1.0, 2.0]


@pytest.mark.parametrize("status", [400, 403, 404, 422])
async def test_request_errors_are_not_retried(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock, status: int
) -> None:
    openai_server.script(HttpError(status), ANSWER)
    with pytest.raises(GenerationError) as raised:
        await generator(chat_for_server(), fake_time).generate(MESSAGES)
    assert (raised.value.reason, raised.value.retryable) == (f"HTTP {status}", False)
    assert raised.value.attempts == 1
    assert len(openai_server.requests) == 1
    assert fake_time.waits == []


async def test_a_wrong_api_key_is_not_retried(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock
) -> None:
    model = chat_for_server(api_key="sk-wrong")
    with pytest.raises(GenerationError) as raised:
        await generator(model, fake_time).generate(MESSAGES)
    assert (raised.value.reason, raised.value.attempts) == ("HTTP 401", 1)
    assert isinstance(raised.value.__cause__, openai.AuthenticationError)
    assert len(openai_server.requests) == 1


async def test_exhausted_attempts_raise_one_error_with_the_attempt_count(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock
) -> None:
    openai_server.script(*[HttpError(503)] * 4, ANSWER)
    with pytest.raises(GenerationError) as raised:
        await generator(chat_for_server(), fake_time, attempts=4).generate(MESSAGES)
    assert (raised.value.reason, raised.value.retryable, raised.value.attempts) == (
        "HTTP 503",
        True,
        4,
    )
    assert isinstance(raised.value.__cause__, openai.InternalServerError)
    assert len(openai_server.requests) == 4
    assert fake_time.waits == [1.0, 2.0, 4.0]


async def test_no_wait_is_started_that_would_cross_the_deadline(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock
) -> None:
    openai_server.script(*[HttpError(429, retry_after="3")] * 3, ANSWER)
    with pytest.raises(GenerationError) as raised:
        await generator(chat_for_server(), fake_time, deadline=5.0).generate(MESSAGES)
    assert fake_time.waits == [3.0]  # a second 3 s wait would end at 6 s > 5 s
    assert raised.value.attempts == 2
    assert len(openai_server.requests) == 2


async def test_the_deadline_also_cuts_an_attempt_that_hangs(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat
) -> None:
    openai_server.script(Delay(5.0))
    policy = RetryPolicy(max_attempts=4, deadline_seconds=0.2)
    with pytest.raises(GenerationError) as raised:
        await Generator(chat_for_server(timeout=5.0), policy).generate(MESSAGES)
    assert (raised.value.reason, raised.value.attempts) == ("deadline", 1)


@pytest.mark.parametrize("retry_after", ["120", format_datetime(NOW.replace(hour=13), usegmt=True)])
async def test_retry_after_is_capped(
    openai_server: FakeOpenAIServer,
    chat_for_server: MakeChat,
    fake_time: FakeClock,
    retry_after: str,
) -> None:
    openai_server.script(HttpError(429, retry_after=retry_after), ANSWER)
    assert await generator(chat_for_server(), fake_time).generate(MESSAGES) == ANSWER
    assert fake_time.waits == [20.0]


async def test_an_empty_reply_is_retried_unless_the_model_said_why(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock
) -> None:
    openai_server.script("", ANSWER, Reply("", finish_reason="content_filter"))
    model = generator(chat_for_server(), fake_time)
    assert await model.generate(MESSAGES) == ANSWER
    with pytest.raises(GenerationError) as raised:
        await model.generate(MESSAGES)
    assert (raised.value.reason, raised.value.retryable) == ("empty reply", False)
    assert len(openai_server.requests) == 3


async def test_a_malformed_body_is_not_retried(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock
) -> None:
    openai_server.script(MalformedJson(), ANSWER)
    with pytest.raises(GenerationError) as raised:
        await generator(chat_for_server(), fake_time).generate(MESSAGES)
    assert (raised.value.reason, raised.value.attempts) == ("malformed response", 1)


async def test_each_retry_is_logged_with_reason_attempt_and_wait(
    openai_server: FakeOpenAIServer,
    chat_for_server: MakeChat,
    fake_time: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    openai_server.script(HttpError(429, retry_after="3"), HttpError(502), ANSWER)
    with caplog.at_level(logging.WARNING, logger="rag.generate.llm"):
        await generator(chat_for_server(), fake_time).generate(MESSAGES)
    assert [record.getMessage() for record in caplog.records] == [
        "chat model call failed (HTTP 429), attempt 1 of 4; retrying in 3.00 s",
        "chat model call failed (HTTP 502), attempt 2 of 4; retrying in 2.00 s",
    ]


def test_default_backoff_grows_with_jitter_and_is_capped() -> None:
    backoff = default_backoff(cap=5.0)
    state = RetryCallState(AsyncRetrying(), fn=None, args=(), kwargs={})
    waits = []
    for attempt in (1, 2, 3, 6):
        state.attempt_number = attempt
        waits.append(backoff(state))
    assert 1.0 <= waits[0] <= 2.0
    assert 2.0 <= waits[1] <= 3.0
    assert 4.0 <= waits[2] <= 5.0
    assert waits[3] == 5.0


def test_no_llm_configured_means_the_offline_extractive_model() -> None:
    assert isinstance(chat_model_from_settings(Settings()), ExtractiveChatModel)


def test_the_offline_model_compares_sentences_with_the_configured_embedder() -> None:
    """EMBEDDINGS' embedder, also in the lexical phase; none with EMBEDDINGS=none (the words
    alone decide) or with a chat model (it reads the sources itself)."""
    similarity = similarity_from_settings(Settings(embeddings="e5"))
    assert similarity is not None
    assert similarity.identity == E5Embeddings().identity
    model = chat_model_from_settings(Settings(), similarity=similarity)
    assert isinstance(model, ExtractiveChatModel)
    assert model.similarity is similarity
    assert similarity_from_settings(Settings(embeddings="none")) is None
    llm = Settings(llm_base_url="http://127.0.0.1:11434/v1", llm_model="qwen2.5")
    assert similarity_from_settings(llm) is None


def test_a_configured_llm_is_chat_openai_without_its_own_retries() -> None:
    settings = Settings(
        llm_base_url="http://127.0.0.1:11434/v1", llm_model="qwen2.5", llm_timeout_seconds=7.0
    )
    model = chat_model_from_settings(settings)
    assert isinstance(model, ChatOpenAI)
    assert (model.openai_api_base, model.model_name) == ("http://127.0.0.1:11434/v1", "qwen2.5")
    assert (model.max_retries, model.request_timeout, model.temperature) == (0, 7.0, 0)
    assert isinstance(model.openai_api_key, SecretStr)
    assert model.openai_api_key.get_secret_value() == NO_API_KEY


async def test_the_offline_generator_answers_with_citations() -> None:
    generator = generator_from_settings(Settings())
    assert generator.model_id == "extractive/11"
    assert await generator.generate(MESSAGES) == "流利级原价 4800 元，共 16 课时[1]。"
