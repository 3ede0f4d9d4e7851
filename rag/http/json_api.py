"""JSON over HTTP: one aiohttp session and base URL, decoded bodies, retried per
:mod:`rag.http.retry`. What counts as an error is the caller's ``check`` (the plain rule: an
error status; Feishu's: a ``code`` other than 0, in a 200 answer as often as in an error)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import aiohttp
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from rag.http.retry import HttpError, HttpRetry, http_reason, transient

logger = logging.getLogger(__name__)

TIMEOUT_SECONDS = 30.0


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
        retry: HttpRetry | None = None,
        check: Check = http_status,
        timeout_seconds: float = TIMEOUT_SECONDS,
        retries_logged_at: int = logging.INFO,
    ) -> None:
        """``retries_logged_at``: WARNING where a retry delays someone waiting (the bot)."""
        self.session = session
        self.timeout = aiohttp.ClientTimeout(total=timeout_seconds)
        self.retries_logged_at = retries_logged_at
        self.base_url = base_url.rstrip("/")
        self.headers = dict(headers or {})
        self.retry = retry or HttpRetry()
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
        pace: Callable[[], Awaitable[None]] | None = None,
    ) -> Any:
        """The decoded body; ``pace`` is awaited before each attempt (a rate of sends)."""
        what = f"{method} {path.split('?')[0]}"
        retrying = AsyncRetrying(
            retry=retry_if_exception(transient),
            stop=stop_after_attempt(self.retry.max_attempts),
            wait=self.retry.wait(),
            sleep=self.retry.sleep,
            before_sleep=lambda state: logger.log(
                self.retries_logged_at,
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
                if pace is not None:
                    await pace()
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
            timeout=self.timeout,
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
    return http_reason(error) if error is not None else "?"
