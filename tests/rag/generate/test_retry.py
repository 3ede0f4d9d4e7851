from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx2
import openai
import pytest
from tenacity.wait import wait_exponential

from rag.assemble import generator_from_settings
from rag.generate.retry import (
    EmptyReplyError,
    RetryPolicy,
    describe,
    is_transient,
    parse_retry_after,
    retry_after_seconds,
)
from rag.settings import Settings

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
REQUEST = httpx2.Request("POST", "http://llm.test/v1/chat/completions")


def status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    response = httpx2.Response(status, headers=headers or {}, request=REQUEST)
    classes: dict[int, type[openai.APIStatusError]] = {
        400: openai.BadRequestError,
        401: openai.AuthenticationError,
        403: openai.PermissionDeniedError,
        404: openai.NotFoundError,
        422: openai.UnprocessableEntityError,
        429: openai.RateLimitError,
    }
    error_class = classes.get(status, openai.InternalServerError if status >= 500 else None)
    error_class = error_class or openai.APIStatusError
    return error_class(f"Error code: {status}", response=response, body=None)


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504])
def test_rate_limits_and_server_errors_are_transient(status: int) -> None:
    assert is_transient(status_error(status))


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 422])
def test_request_errors_are_not_transient(status: int) -> None:
    assert not is_transient(status_error(status))


def test_timeouts_connection_errors_and_unexplained_empty_replies_are_transient() -> None:
    assert is_transient(openai.APITimeoutError(REQUEST))
    assert is_transient(openai.APIConnectionError(request=REQUEST))
    assert is_transient(EmptyReplyError("stop"))
    assert not is_transient(EmptyReplyError("content_filter"))
    assert not is_transient(ValueError("Expecting value"))


def test_reasons_are_short_and_stable() -> None:
    assert describe(status_error(429)) == "HTTP 429"
    assert describe(openai.APITimeoutError(REQUEST)) == "timeout"
    assert describe(openai.APIConnectionError(request=REQUEST)) == "connection error"
    assert describe(EmptyReplyError(None)) == "empty reply"


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("3", 3.0),
        (" 1.5 ", 1.5),
        ("-4", 0.0),
        ("Sat, 01 Mar 2025 12:00:07 GMT", 7.0),
        ("Sat, 01 Mar 2025 11:59:00 GMT", 0.0),
        ("soon", None),
        ("nan", None),
    ],
)
def test_retry_after_is_read_as_seconds_or_http_date(value: str, seconds: float | None) -> None:
    assert parse_retry_after(value, now=NOW) == seconds


def test_retry_after_ms_takes_precedence_and_other_errors_have_none() -> None:
    error = status_error(429, {"retry-after-ms": "250", "retry-after": "9"})
    assert retry_after_seconds(error, now=NOW) == 0.25
    assert retry_after_seconds(status_error(429), now=NOW) is None
    assert retry_after_seconds(openai.APITimeoutError(REQUEST), now=NOW) is None


def test_policy_comes_from_settings() -> None:
    policy = generator_from_settings(Settings(llm_max_attempts=2, llm_deadline_seconds=12.0)).policy
    assert (policy.max_attempts, policy.deadline_seconds) == (2, 12.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_attempts": 0}, "max_attempts (0) must be at least 1"),
        ({"deadline_seconds": 0.0}, "deadline_seconds (0.0) must be positive"),
        ({"cap_seconds": -1.0}, "cap_seconds (-1.0) must be positive"),
    ],
)
def test_policy_rejects_values_it_cannot_use(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        RetryPolicy(backoff=wait_exponential(), **kwargs)
