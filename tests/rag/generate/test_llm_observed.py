"""What the generator tells its observer (the bot's metrics): each call's outcome, each failed
request by kind, and whether another attempt followed it."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from rag.generate.llm import GenerationError, Generator
from rag.generate.retry import RetryPolicy
from rag.observer import ERROR_KINDS, ModelOutcome
from tests.fakes.clock import FakeClock
from tests.fakes.openai_server import (
    Delay,
    DropConnection,
    FakeOpenAIServer,
    HttpError,
    MalformedJson,
    unused_base_url,
)
from tests.rag.generate.test_llm import ANSWER, MESSAGES, MakeChat, fake_time, generator

__all__ = ["fake_time"]  # the fixture, shared with test_llm.py


@dataclass
class Heard:
    calls: list[ModelOutcome] = field(default_factory=list)
    errors: list[tuple[str, bool]] = field(default_factory=list)

    def model_call(self, outcome: ModelOutcome) -> None:
        self.calls.append(outcome)

    def model_error(self, kind: str, *, retried: bool) -> None:
        assert kind in ERROR_KINDS
        self.errors.append((kind, retried))

    def synced(self, source: str, outcome: str, seconds: float) -> None:
        raise AssertionError("a generator never syncs")


def observed(model: Generator, heard: Heard) -> Generator:
    return Generator(model.model, model.policy, observer=heard)


async def test_a_429_then_a_reply_is_one_call_with_one_retried_error(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock
) -> None:
    heard = Heard()
    openai_server.script(HttpError(429, retry_after="1"), ANSWER)
    assert await observed(generator(chat_for_server(), fake_time), heard).generate(MESSAGES)
    assert heard.calls == ["ok"]
    assert heard.errors == [("http_429", True)]


async def test_exhausted_retries_end_in_one_failed_call_and_a_last_error_not_retried(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock
) -> None:
    heard = Heard()
    openai_server.script(*[HttpError(503)] * 3)
    with pytest.raises(GenerationError):
        await observed(generator(chat_for_server(), fake_time, attempts=3), heard).generate(
            MESSAGES
        )
    assert heard.calls == ["failed"]
    assert heard.errors == [("http_5xx", True), ("http_5xx", True), ("http_5xx", False)]


@pytest.mark.parametrize(
    ("step", "kind"),
    [(HttpError(400), "http_4xx"), (HttpError(401), "http_4xx"), (MalformedJson(), "malformed")],
)
async def test_an_error_that_is_not_retried_is_told_once_by_its_kind(
    openai_server: FakeOpenAIServer,
    chat_for_server: MakeChat,
    fake_time: FakeClock,
    step: HttpError | MalformedJson,
    kind: str,
) -> None:
    heard = Heard()
    openai_server.script(step, ANSWER)
    with pytest.raises(GenerationError):
        await observed(generator(chat_for_server(), fake_time), heard).generate(MESSAGES)
    assert (heard.calls, heard.errors) == (["failed"], [(kind, False)])


async def test_timeouts_and_dropped_connections_are_told_apart(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock
) -> None:
    heard = Heard()
    openai_server.script(Delay(2.0), DropConnection(), ANSWER)
    model = observed(generator(chat_for_server(timeout=0.2), fake_time), heard)
    assert await model.generate(MESSAGES) == ANSWER
    assert heard.errors == [("timeout", True), ("connection", True)]
    assert heard.calls == ["ok"]


async def test_a_refused_connection_and_the_overall_deadline_have_their_own_kinds(
    openai_server: FakeOpenAIServer, chat_for_server: MakeChat, fake_time: FakeClock
) -> None:
    heard = Heard()
    refused = observed(generator(chat_for_server(base_url=unused_base_url()), fake_time), heard)
    with pytest.raises(GenerationError):
        await refused.generate(MESSAGES)
    assert heard.errors[-1] == ("connection", False)

    heard = Heard()
    openai_server.script(Delay(5.0))
    policy = RetryPolicy(max_attempts=4, deadline_seconds=0.2)
    hanging = Generator(chat_for_server(timeout=5.0), policy, observer=heard)
    with pytest.raises(GenerationError):
        await hanging.generate(MESSAGES)
    assert (heard.calls, heard.errors) == (["failed"], [("deadline", False)])
