"""When and how long to wait before calling the chat model again.

Only transient failures are retried — timeouts, connection errors, HTTP 408/429 and 5xx;
a 400/401/403/404/422 will fail the same way every time. Waits back off exponentially with
jitter, except that a server's ``Retry-After`` (seconds or an HTTP date; OpenAI also sends
``retry-after-ms``) is honoured; every wait is capped. An overall deadline bounds the total
time: a wait that would end past it is not started.

The strategies are tenacity objects, and sleep and clocks are injected, so tests assert the
waits (``[1.0, 2.0]``) without sleeping.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from tenacity import RetryCallState
from tenacity.stop import stop_base
from tenacity.wait import wait_base, wait_exponential_jitter

from rag.errors import CitebotError

RETRY_AFTER_CAP_SECONDS = 20.0
"""No single wait is longer than this, whatever a server asks: an asker is waiting in chat."""

TRANSIENT_STATUSES = frozenset({408, 429})
"""Besides 5xx: statuses that say "try again later" rather than "this request is wrong"."""


class EmptyReplyError(CitebotError):
    """The model answered with no text.

    Transient unless the model said why it stopped (``length``, ``content_filter``): providers
    under load occasionally return an empty message for a prompt that works on the next call.
    """

    def __init__(self, finish_reason: str | None) -> None:
        self.finish_reason = finish_reason
        self.transient = finish_reason in {None, "stop", ""}
        super().__init__(f"the model returned no text (finish_reason={finish_reason!r})")


def is_transient(error: BaseException) -> bool:
    """Whether calling again, unchanged, may succeed."""
    import openai  # only once something failed: the import is most of a second

    if isinstance(error, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code >= 500 or error.status_code in TRANSIENT_STATUSES
    if isinstance(error, EmptyReplyError):
        return error.transient
    return False


def describe(error: BaseException) -> str:
    """Short, stable reason for logs and ``GenerationError.reason``.

    ``HTTP 429``, ``timeout``, ``connection error``, ``empty reply``, ``malformed response``,
    else the exception's class name.
    """
    import openai

    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}"
    if isinstance(error, openai.APITimeoutError):
        return "timeout"
    if isinstance(error, openai.APIConnectionError):
        return "connection error"
    if isinstance(error, EmptyReplyError):
        return "empty reply"
    if isinstance(error, ValueError | openai.APIResponseValidationError):
        # A 200 whose body isn't a completion: usually LLM_BASE_URL points at something that
        # isn't an OpenAI-compatible API, which retrying won't fix.
        return "malformed response"
    return type(error).__name__


def error_kind(error: BaseException) -> str:
    """:func:`describe` folded into :data:`rag.observer.ERROR_KINDS`: a metric's label may
    take only a few values, so every 4xx but 429 is ``http_4xx`` and every 5xx ``http_5xx``."""
    import openai

    if isinstance(error, openai.APIStatusError):
        if error.status_code == 429:
            return "http_429"
        return "http_5xx" if error.status_code >= 500 else "http_4xx"
    folded = {
        "timeout": "timeout",
        "connection error": "connection",
        "empty reply": "empty_reply",
        "malformed response": "malformed",
    }
    return folded.get(describe(error), "other")


def parse_retry_after(value: str, *, now: datetime) -> float | None:
    """Seconds to wait from a ``Retry-After`` value: delay-seconds or an HTTP date."""
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - now).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(seconds, 0.0)


def retry_after_seconds(error: BaseException, *, now: datetime) -> float | None:
    """The wait a server asked for in the failed response's headers, if any."""
    import openai  # only once something failed: the import is most of a second

    if not isinstance(error, openai.APIStatusError):
        return None
    headers = error.response.headers
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        seconds = parse_retry_after(milliseconds, now=now)
        if seconds is not None:
            return seconds / 1000
    value = headers.get("retry-after")
    return None if value is None else parse_retry_after(value, now=now)


def _failure(retry_state: RetryCallState) -> BaseException | None:
    outcome = retry_state.outcome
    return outcome.exception() if outcome is not None and outcome.failed else None


class wait_retry_after(wait_base):
    """The server's ``Retry-After`` when it sent one, else ``fallback``; capped at ``cap``.

    Lower-case like tenacity's own strategies, which it composes with.
    """

    def __init__(
        self,
        fallback: wait_base,
        *,
        cap: float = RETRY_AFTER_CAP_SECONDS,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        if cap <= 0:
            msg = f"cap ({cap}) must be positive"
            raise ValueError(msg)
        self.fallback = fallback
        self.cap = cap
        self.now = now

    def __call__(self, retry_state: RetryCallState) -> float:
        error = _failure(retry_state)
        asked = None if error is None else retry_after_seconds(error, now=self.now())
        wait = self.fallback(retry_state) if asked is None else asked
        return min(wait, self.cap)


class stop_before_deadline(stop_base):
    """Stop when the coming wait would end at or after ``deadline`` on ``clock``."""

    def __init__(self, deadline: float, clock: Callable[[], float]) -> None:
        self.deadline = deadline
        self.clock = clock

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self.clock() + retry_state.upcoming_sleep >= self.deadline


def default_backoff(cap: float = RETRY_AFTER_CAP_SECONDS) -> wait_base:
    """About 1, 2, 4 … seconds plus up to 1 s of jitter, so many clients don't retry in step."""
    return wait_exponential_jitter(multiplier=1, max=cap, jitter=1)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How many attempts, how long in total, how to wait; sleep and clocks are injectable."""

    max_attempts: int = 4
    """Attempts including the first."""
    deadline_seconds: float = 90.0
    """Upper bound on the whole call including waits; measured on ``clock``."""
    backoff: wait_base = field(default_factory=default_backoff)
    """Wait when the server sent no ``Retry-After``."""
    cap_seconds: float = RETRY_AFTER_CAP_SECONDS
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    clock: Callable[[], float] = time.monotonic
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    """Wall clock, only to turn an HTTP-date ``Retry-After`` into seconds."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            msg = f"max_attempts ({self.max_attempts}) must be at least 1"
            raise ValueError(msg)
        if not self.deadline_seconds > 0:
            msg = f"deadline_seconds ({self.deadline_seconds}) must be positive"
            raise ValueError(msg)
        if not self.cap_seconds > 0:
            msg = f"cap_seconds ({self.cap_seconds}) must be positive"
            raise ValueError(msg)

    def wait(self) -> wait_base:
        return wait_retry_after(self.backoff, cap=self.cap_seconds, now=self.now)
