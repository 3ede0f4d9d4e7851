"""When an HTTP call is made again, and after how long.

Retried: connection errors, timeouts, HTTP 5xx and rate limits (HTTP 429, or what an API's own
check calls one, e.g. Feishu's code 99991400), after the wait the server names —
``Retry-After`` (Confluence) or ``x-ogw-ratelimit-reset`` (Feishu) — capped, else an
exponential backoff. Never retried: other 4xx (bad credentials, no permission, not found, a
message that is too long fail the same way every time). The sleep is injected so tests assert
the waits without sleeping (as in rag/generate/retry.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import aiohttp
from tenacity import RetryCallState
from tenacity.wait import wait_base, wait_exponential_jitter

from rag.errors import CitebotError

Sleep = Callable[[float], Awaitable[None]]
MAX_WAIT_SECONDS = 120.0
"""A sync is not answering anyone: it may wait for the rate limit, but not for ever."""


class HttpError(CitebotError):
    """An HTTP error status, or an API's own error ``code`` in a 200 answer (Feishu)."""

    def __init__(
        self, what: str, *, status: int, message: str = "", code: int = 0, wait: float | None = None
    ) -> None:
        self.what = what
        self.status = status
        self.message = message
        self.code = code
        self.wait = wait
        """Seconds the server asked us to wait (``Retry-After``), when it said."""
        detail = f", code {code}" if code else ""
        super().__init__(f"{what}: HTTP {status}{detail}{': ' + message if message else ''}")

    @property
    def transient(self) -> bool:
        return self.status == 429 or self.status >= 500


HTTP_ERRORS = (HttpError, aiohttp.ClientError, OSError, TimeoutError)
"""What a failed call raises: the server said no, or nothing answered."""


def transient(error: BaseException) -> bool:
    if isinstance(error, HttpError):
        return error.transient
    return isinstance(error, aiohttp.ClientConnectionError | asyncio.TimeoutError)


def http_reason(error: BaseException) -> str:
    """A short reason for a log or summary line: ``HTTP 503``, ``HTTP 400 (code 230002)``,
    ``timeout``, ``connection error``."""
    if isinstance(error, HttpError):
        return f"HTTP {error.status}" + (f" (code {error.code})" if error.code else "")
    if isinstance(error, asyncio.TimeoutError):
        return "timeout"
    if isinstance(error, aiohttp.ClientError):
        return "connection error"
    return type(error).__name__


class wait_server(wait_base):
    """The server's wait after a rate limit or 5xx that names one, else ``fallback``; both
    capped."""

    def __init__(self, fallback: wait_base, cap: float) -> None:
        if cap <= 0:
            msg = f"cap ({cap}) must be positive"
            raise ValueError(msg)
        self.fallback = fallback
        self.cap = cap

    def __call__(self, retry_state: RetryCallState) -> float:
        outcome = retry_state.outcome
        error = outcome.exception() if outcome is not None and outcome.failed else None
        if isinstance(error, HttpError) and error.wait is not None:
            return min(max(error.wait, 0.0), self.cap)
        return min(self.fallback(retry_state), self.cap)


@dataclass(frozen=True, slots=True)
class HttpRetry:
    """The defaults suit a background sync; :data:`ANSWERING` is the policy while someone
    waits for an answer."""

    max_attempts: int = 5
    """Attempts including the first."""
    backoff: wait_base = field(
        default_factory=lambda: wait_exponential_jitter(initial=1, max=30, jitter=1)
    )
    cap_seconds: float = MAX_WAIT_SECONDS
    sleep: Sleep = asyncio.sleep

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            msg = f"max_attempts ({self.max_attempts}) must be at least 1"
            raise ValueError(msg)

    def wait(self) -> wait_base:
        return wait_server(self.backoff, self.cap_seconds)


def answering_retry(sleep: Sleep = asyncio.sleep) -> HttpRetry:
    """Fewer, shorter waits: a bot's reply, card or member list an asker or reviewer is
    waiting for. No single wait over 30 s, whatever the gateway says."""
    return HttpRetry(
        max_attempts=4,
        backoff=wait_exponential_jitter(multiplier=0.5, max=8, jitter=0.5),
        cap_seconds=30.0,
        sleep=sleep,
    )
