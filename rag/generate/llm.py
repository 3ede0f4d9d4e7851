"""The chat model the pipeline talks to, and the one retried call to it.

``chat_model`` makes the single choice there is: the offline extractive answerer
when no LLM is configured, else ``ChatOpenAI`` against any OpenAI-compatible endpoint (OpenAI,
DeepSeek, Qwen/DashScope compatible mode, vLLM, Ollama differ only in base URL and model).
``ChatOpenAI``'s own retries are off because :class:`Generator` wraps the call — and only the
call — in tenacity with our policy (:mod:`rag.generate.retry`).

Failures leave as one typed error::

    GenerationError(reason, retryable, attempts)   __cause__ = the last underlying error
      reason:    "HTTP 429", "timeout", "connection error", "empty reply",
                 "malformed response", "deadline" (see rag.generate.retry.describe)
      retryable: the failure was transient (asking again later may work), even when our
                 attempts or deadline ran out; False for 400/401/403/404/422, a malformed
                 response body and an empty reply the model explained (length, content_filter)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import SecretStr
from tenacity import AsyncRetrying, RetryCallState, RetryError, retry_if_exception
from tenacity.stop import stop_after_attempt

from rag.errors import CitebotError
from rag.generate.extractive import ExtractiveChatModel, model_identity
from rag.generate.retry import (
    EmptyReplyError,
    RetryPolicy,
    describe,
    error_kind,
    is_transient,
    stop_before_deadline,
)
from rag.observer import UNOBSERVED, Observer
from rag.similarity import SentenceSimilarity

logger = logging.getLogger(__name__)

NO_API_KEY = "unused"
"""Local servers (Ollama, vLLM) need no key, but the OpenAI client refuses to start without one."""


class GenerationError(CitebotError):
    """The chat model gave no usable reply; the edge turns this into one human sentence."""

    def __init__(self, reason: str, *, retryable: bool, attempts: int) -> None:
        self.reason = reason
        self.retryable = retryable
        self.attempts = attempts
        super().__init__(f"generation failed after {attempts} attempt(s): {reason}")


class _DeadlineExceeded(CitebotError):
    """An attempt was still running when the overall deadline passed."""


def chat_model(
    *,
    base_url: str | None = None,
    api_key: SecretStr | None = None,
    model: str | None = None,
    timeout_seconds: float = 30.0,
    max_tokens: int | None = None,
    similarity: SentenceSimilarity | None = None,
) -> BaseChatModel:
    """The extractive answerer when no endpoint is given (no URL, no key), else ChatOpenAI.

    ``max_tokens`` bounds each reply; ``None``: the endpoint's own limit. It is sent in the
    field the endpoint reads (:func:`token_bound_field`). ``similarity``: the extractive
    answerer's question-sentence similarity (the embedder's), unused by a model."""
    if base_url is None and api_key is None:
        return ExtractiveChatModel(similarity=similarity)
    # Imported here: a second and a half of every command's start, needed only with an endpoint.
    from langchain_openai import ChatOpenAI
    from openai import DefaultAsyncHttpxClient

    bound = token_bound_field(base_url)
    return ChatOpenAI(
        # A client of its own, closed with the pipeline (:meth:`Generator.aclose`): without
        # one, ChatOpenAI shares a process-wide cached client that nobody closes, whose
        # keep-alive sockets outlived the pipeline ("unclosed socket" warnings).
        http_async_client=DefaultAsyncHttpxClient(),
        base_url=base_url,
        api_key=api_key or SecretStr(NO_API_KEY),
        model=model or "",
        timeout=timeout_seconds,
        max_retries=0,
        temperature=0,
        max_completion_tokens=max_tokens if bound == "max_completion_tokens" else None,
        extra_body={"max_tokens": max_tokens} if bound == "max_tokens" and max_tokens else None,
    )


_OPENAI_HOSTS = ("api.openai.com", ".openai.azure.com")


def token_bound_field(base_url: str | None) -> str:
    """``max_completion_tokens`` for OpenAI's own API (its reasoning models reject the older
    ``max_tokens``, and it refuses both at once); ``max_tokens`` for every other
    OpenAI-compatible server: llama.cpp's and llama-cpp-python's read only that one, and a
    bound they ignore lets a small model write until the context is full."""
    host = (urlsplit(base_url).hostname or "") if base_url else "api.openai.com"
    official = any(host == h.lstrip(".") or host.endswith(h) for h in _OPENAI_HOSTS)
    return "max_completion_tokens" if official else "max_tokens"


def _log_retry(max_attempts: int, observer: Observer) -> Callable[[RetryCallState], None]:
    def before_sleep(retry_state: RetryCallState) -> None:
        outcome = retry_state.outcome
        error = outcome.exception() if outcome is not None else None
        observer.model_error(error_kind(error) if error is not None else "other", retried=True)
        logger.warning(
            "chat model call failed (%s), attempt %d of %d; retrying in %.2f s",
            describe(error) if error is not None else "unknown",
            retry_state.attempt_number,
            max_attempts,
            retry_state.upcoming_sleep,
        )

    return before_sleep


async def close_models(*generators: Generator | None) -> None:
    """Close the HTTP clients of the generators' chat models (:meth:`Generator.aclose`)."""
    for generator in generators:
        if generator is not None:
            await generator.aclose()


class Generator:
    """Calls the chat model once per question, retrying transient failures per the policy."""

    def __init__(
        self,
        model: BaseChatModel,
        policy: RetryPolicy | None = None,
        *,
        observer: Observer = UNOBSERVED,
    ) -> None:
        self.model = model
        self.policy = policy or RetryPolicy()
        self.observer = observer
        """Hears each call's outcome, each failed request and each retry (the bot's metrics)."""
        self.model_id = model_identity(model)
        self.quotes_sources = isinstance(model, ExtractiveChatModel)
        """The offline answerer quotes the sources as written, under a lead-in in the asker's
        language: never asked again (the second request would hold no sources)."""

    async def aclose(self) -> None:
        """Close the model's HTTP client, when it has one of its own (:func:`chat_model`'s)."""
        client = getattr(self.model, "http_async_client", None)
        close = getattr(client, "aclose", None)
        if close is not None:
            await close()

    async def generate(self, messages: Sequence[BaseMessage]) -> str:
        """The model's reply text; raises :class:`GenerationError` when there is none."""
        return (await self.generate_reply(messages)).text.strip()

    async def generate_reply(self, messages: Sequence[BaseMessage]) -> BaseMessage:
        """The model's whole reply (text and token usage), retried like :meth:`generate`."""
        policy = self.policy
        deadline = policy.clock() + policy.deadline_seconds
        retrying = AsyncRetrying(
            stop=stop_after_attempt(policy.max_attempts)
            | stop_before_deadline(deadline, policy.clock),
            wait=policy.wait(),
            retry=retry_if_exception(is_transient),
            sleep=policy.sleep,
            before_sleep=_log_retry(policy.max_attempts, self.observer),
        )
        attempts = 0
        try:
            async for attempt in retrying:
                attempts = attempt.retry_state.attempt_number
                with attempt:
                    reply = await self._call_once(messages, deadline - policy.clock())
                    self.observer.model_call("ok")
                    return reply
        except RetryError as exhausted:
            last = exhausted.last_attempt.exception()
            reason = describe(last) if last is not None else "unknown"
            self._failed(error_kind(last) if last is not None else "other")
            raise GenerationError(reason, retryable=True, attempts=attempts) from last
        except _DeadlineExceeded as error:
            msg = "deadline"
            self._failed(msg)
            raise GenerationError(msg, retryable=True, attempts=attempts) from error
        except Exception as error:
            self._failed(error_kind(error))
            raise GenerationError(
                describe(error), retryable=is_transient(error), attempts=attempts
            ) from error
        # AsyncRetrying either returns from inside the loop or raises; never falls through.
        msg = "unreachable"
        raise AssertionError(msg)  # pragma: no cover

    def _failed(self, kind: str) -> None:
        """The last request failed (``kind``) and no other follows: the call failed."""
        self.observer.model_error(kind, retried=False)
        self.observer.model_call("failed")

    async def _call_once(self, messages: Sequence[BaseMessage], remaining: float) -> BaseMessage:
        # The per-call timeout lives in the client; this bounds the last attempt by what is
        # left of the overall deadline.
        scope = asyncio.timeout(max(remaining, 0.0))
        try:
            async with scope:
                reply = await self.model.ainvoke(list(messages))
        except TimeoutError as error:
            if scope.expired():
                raise _DeadlineExceeded from error
            raise
        if not reply.text.strip():
            raise EmptyReplyError(reply.response_metadata.get("finish_reason"))
        return reply
