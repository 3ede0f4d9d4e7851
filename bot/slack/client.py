"""The one Slack Web API client: ``SLACK_API_URL`` as base URL, 429s retried after Retry-After.

slack_sdk only retries connection errors by default; a 429 would surface as ``SlackApiError``
and the asker would get nothing. :class:`RateLimitRetry` is slack_sdk's
``AsyncRateLimitErrorRetryHandler`` with the sleep injected (tests pass a recorder, so
``Retry-After: 0`` costs no time and the waits can be asserted) and a cap on how long one wait
may be, so a misbehaving proxy cannot park a reply for an hour.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable

import aiohttp
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState
from slack_sdk.web.async_client import AsyncWebClient

Sleep = Callable[[float], Awaitable[None]]

RATE_LIMIT_RETRIES = 5
MAX_RETRY_AFTER_SECONDS = 60.0
DEFAULT_TIMEOUT_SECONDS = 30


class RateLimitRetry(AsyncRateLimitErrorRetryHandler):
    """Retry a 429 after ``Retry-After`` seconds (plus up to ``jitter``), at most
    ``max_retry_count`` times."""

    def __init__(
        self,
        max_retry_count: int = RATE_LIMIT_RETRIES,
        *,
        sleep: Sleep = asyncio.sleep,
        jitter: float = 1.0,
        max_wait: float = MAX_RETRY_AFTER_SECONDS,
    ) -> None:
        if max_retry_count < 0 or jitter < 0 or max_wait < 0:
            msg = (
                f"max_retry_count ({max_retry_count}), jitter ({jitter}) and max_wait "
                f"({max_wait}) must not be negative"
            )
            raise ValueError(msg)
        super().__init__(max_retry_count=max_retry_count)
        self.sleep = sleep
        self.jitter = jitter
        self.max_wait = max_wait

    async def prepare_for_next_attempt_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> None:
        if response is None:  # pragma: no cover - only called for 429 responses
            raise error or RuntimeError("rate-limit retry without a response")
        state.next_attempt_requested = True
        await self.sleep(min(self.max_wait, _retry_after(response) + random.random() * self.jitter))
        state.increment_current_attempt()


def _retry_after(response: HttpResponse) -> float:
    for name, values in response.headers.items():
        if name.lower() == "retry-after" and values:
            try:
                return max(0.0, float(values[0]))
            except ValueError:
                return 1.0
    return 1.0


def web_client(
    token: str,
    *,
    base_url: str,
    session: aiohttp.ClientSession | None = None,
    rate_limit: RateLimitRetry | None = None,
) -> AsyncWebClient:
    """The client every listener uses (bolt copies base URL, session and retry handlers into
    each request's ``client``)."""
    handlers: list[AsyncRetryHandler] = [
        AsyncConnectionErrorRetryHandler(),
        rate_limit or RateLimitRetry(),
    ]
    return AsyncWebClient(
        token=token,
        base_url=base_url,
        session=session,
        timeout=DEFAULT_TIMEOUT_SECONDS,
        retry_handlers=handlers,
    )
