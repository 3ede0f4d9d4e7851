"""JSON over HTTP for the sources: one aiohttp session, retried where retrying can help.

Retried (tenacity): connection errors, timeouts, HTTP 5xx and rate limits (HTTP 429, or what a
source's ``check`` calls one), after the wait the server names — ``Retry-After`` (Confluence)
or ``x-ogw-ratelimit-reset`` (Feishu) — capped at :data:`MAX_WAIT_SECONDS`, else an
exponential backoff. Never retried: other 4xx (bad credentials, no permission, not found fail
the same way every time). The sleep is injected so tests assert the waits without sleeping.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_base, wait_exponential_jitter

from rag.errors import CitebotError

logger = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]
MAX_WAIT_SECONDS = 120.0
"""A sync is not answering anyone: it may wait for the rate limit, but not for ever."""
TIMEOUT_SECONDS = 30.0


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


def transient(error: BaseException) -> bool:
    if isinstance(error, HttpError):
        return error.transient
    return isinstance(error, aiohttp.ClientConnectionError | asyncio.TimeoutError)


def reason(error: BaseException) -> str:
    """A short reason for a summary line: ``HTTP 503``, ``timeout``, ``connection error``."""
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
        self.fallback = fallback
        self.cap = cap

    def __call__(self, retry_state: RetryCallState) -> float:
        outcome = retry_state.outcome
        error = outcome.exception() if outcome is not None and outcome.failed else None
        if isinstance(error, HttpError) and error.wait is not None:
            return min(max(error.wait, 0.0), self.cap)
        return min(self.fallback(retry_state), self.cap)


@dataclass(frozen=True, slots=True)
class Retry:
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


Check = Callable[[str, int, Any, Mapping[str, str]], HttpError | None]
"""``(what, status, decoded body, headers)`` -> the error this answer is, or ``None``."""


def http_status(what: str, status: int, body: Any, headers: Mapping[str, str]) -> HttpError | None:
    """The plain rule: an error status is an error (with ``Retry-After`` when sent)."""
    if status < 400:
        return None
    message = ""
    if isinstance(body, dict):
        message = str(body.get("message") or body.get("msg") or "")[:200]
    return HttpError(what, status=status, message=message, wait=seconds(headers.get("Retry-After")))


class JsonApi:
    """``get``/``post`` returning the decoded JSON body, with retries."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        base_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        retry: Retry | None = None,
        check: Check = http_status,
    ) -> None:
        self.session = session
        self.base_url = base_url.rstrip("/")
        self.headers = dict(headers or {})
        self.retry = retry or Retry()
        self.check = check
        self.calls = 0
        """Requests sent, retries included (the sync's summary reports the cost)."""

    def url(self, path: str) -> str:
        """``path`` under the base URL; an absolute URL (a ``next`` link) as it is."""
        return path if path.startswith(("http://", "https://")) else self.base_url + path

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        what = f"{method} {path.split('?')[0]}"
        retrying = AsyncRetrying(
            retry=retry_if_exception(transient),
            stop=stop_after_attempt(self.retry.max_attempts),
            wait=wait_server(self.retry.backoff, self.retry.cap_seconds),
            sleep=self.retry.sleep,
            before_sleep=lambda state: logger.info(
                "%s: %s; retry %d in %.1f s",
                what,
                _why(state),
                state.attempt_number,
                state.upcoming_sleep,
            ),
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                return await self._once(
                    method, path, params, body, {**self.headers, **(headers or {})}
                )
        msg = "unreachable: tenacity reraises the last error"
        raise AssertionError(msg)  # pragma: no cover

    async def _once(
        self,
        method: str,
        path: str,
        params: Mapping[str, str] | None,
        body: Mapping[str, Any] | None,
        headers: Mapping[str, str],
    ) -> Any:
        self.calls += 1
        what = f"{method} {path.split('?')[0]}"
        async with self.session.request(
            method,
            self.url(path),
            params=params,
            json=body,
            headers=headers,
            timeout=aiohttp.ClientTimeout(total=TIMEOUT_SECONDS),
        ) as response:
            try:
                data = await response.json(content_type=None)
            except ValueError:
                data = None
            error = self.check(what, response.status, data, response.headers)
            if error is not None:
                raise error
            return data


def seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _why(state: RetryCallState) -> str:
    error = state.outcome.exception() if state.outcome is not None else None
    return reason(error) if error is not None else "?"
