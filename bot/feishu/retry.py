"""When to call the Open API again, how long to wait, and the per-chat send rate.

Retried: connection errors, timeouts, HTTP 5xx and rate limits — HTTP 429 or code 99991400 (some
older endpoints answer 400 with that code), after the ``x-ogw-ratelimit-reset`` seconds the
gateway names. Never retried: any other error code (a bad request, a missing permission, a
message that is too long fail the same way every time). Waits are capped, and the sleep and
clock are injected so tests assert the waits without sleeping (as in rag/generate/retry.py).

:class:`ChatRate` keeps at most 5 sends a second per chat: Feishu shares that budget between all
bots in a group and answers more with 429s, so spacing them here is cheaper than retrying.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import aiohttp
from tenacity import RetryCallState
from tenacity.wait import wait_base, wait_exponential_jitter

from rag import CitebotError

Sleep = Callable[[float], Awaitable[None]]

RATE_LIMITED = 99991400
MAX_WAIT_SECONDS = 30.0
"""No single wait longer than this, whatever the gateway says: an asker is waiting."""
CHAT_QPS = 5


class FeishuApiError(CitebotError):
    """The Open API answered with an error (``code`` != 0) or an HTTP error status."""

    def __init__(
        self, what: str, *, status: int, code: int, msg: str, reset: float | None = None
    ) -> None:
        self.what = what
        self.status = status
        self.code = code
        self.msg = msg
        self.reset = reset
        """``x-ogw-ratelimit-reset``: seconds until the rate limit lifts, when sent."""
        super().__init__(f"{what}: HTTP {status}, code {code}: {msg}")

    @property
    def rate_limited(self) -> bool:
        return self.status == 429 or self.code == RATE_LIMITED

    @property
    def transient(self) -> bool:
        return self.rate_limited or self.status >= 500


API_ERRORS = (FeishuApiError, aiohttp.ClientError, OSError, TimeoutError)
"""What a failed Open API call raises (Feishu said no, or could not be reached)."""


def is_transient(error: BaseException) -> bool:
    if isinstance(error, FeishuApiError):
        return error.transient
    return isinstance(error, aiohttp.ClientConnectionError | asyncio.TimeoutError)


def describe(error: BaseException) -> str:
    """Short reason for logs: ``feishu:99991400``, ``HTTP 502``, ``timeout``, …"""
    if isinstance(error, FeishuApiError):
        return f"feishu:{error.code}" if error.code else f"HTTP {error.status}"
    if isinstance(error, asyncio.TimeoutError):
        return "timeout"
    if isinstance(error, aiohttp.ClientConnectionError):
        return "connection error"
    return type(error).__name__


class wait_ratelimit_reset(wait_base):
    """``x-ogw-ratelimit-reset`` after a rate limit, else ``fallback``; at most ``cap``."""

    def __init__(self, fallback: wait_base, *, cap: float = MAX_WAIT_SECONDS) -> None:
        if cap <= 0:
            msg = f"cap ({cap}) must be positive"
            raise ValueError(msg)
        self.fallback = fallback
        self.cap = cap

    def __call__(self, retry_state: RetryCallState) -> float:
        outcome = retry_state.outcome
        error = outcome.exception() if outcome is not None and outcome.failed else None
        if isinstance(error, FeishuApiError) and error.rate_limited and error.reset is not None:
            return min(max(error.reset, 0.0), self.cap)
        return min(self.fallback(retry_state), self.cap)


@dataclass(frozen=True, slots=True)
class ApiRetry:
    max_attempts: int = 4
    """Attempts including the first."""
    backoff: wait_base = field(
        default_factory=lambda: wait_exponential_jitter(multiplier=0.5, max=8, jitter=0.5)
    )
    cap_seconds: float = MAX_WAIT_SECONDS
    sleep: Sleep = asyncio.sleep

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            msg = f"max_attempts ({self.max_attempts}) must be at least 1"
            raise ValueError(msg)

    def wait(self) -> wait_base:
        return wait_ratelimit_reset(self.backoff, cap=self.cap_seconds)


class ChatRate:
    """At most ``per_second`` calls a second for each key (a chat, or a message being edited)."""

    def __init__(
        self,
        per_second: int = CHAT_QPS,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        max_keys: int = 10_000,
    ) -> None:
        if per_second < 1:
            msg = f"per_second ({per_second}) must be at least 1"
            raise ValueError(msg)
        self.per_second = per_second
        self.clock = clock
        self.sleep = sleep
        self.max_keys = max_keys
        self._sent: dict[str, deque[float]] = {}

    async def acquire(self, key: str) -> None:
        while True:
            now = self.clock()
            sent = self._sent.setdefault(key, deque())
            while sent and sent[0] <= now - 1.0:
                sent.popleft()
            if len(sent) < self.per_second:
                sent.append(now)
                self._forget_idle(now)
                return
            await self.sleep(sent[0] + 1.0 - now)

    def _forget_idle(self, now: float) -> None:
        if len(self._sent) <= self.max_keys:
            return
        for key in [k for k, v in self._sent.items() if not v or v[-1] <= now - 1.0]:
            del self._sent[key]
