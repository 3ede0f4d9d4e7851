"""Skip a dependency that just failed, and say so once per outage, not once per request.

The answer cache is an optimisation: when Redis is down the bot answers without it. Trying
Redis on every question would add a connect timeout to each one and a warning line to the log
for each one. After a failure the breaker stays open for ``cooldown_seconds``: callers skip
the dependency. Then one caller probes it; success closes the breaker (one info line: back),
failure opens it again quietly. The clock is injected, so tests move time instead of waiting.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)


def describe(error: BaseException) -> str:
    """``ConnectionError: Error 111 connecting to ...`` (some libraries' repr hides the text)."""
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class Breaker:
    def __init__(
        self,
        name: str,
        *,
        cooldown_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if cooldown_seconds < 0:
            msg = f"cooldown_seconds ({cooldown_seconds}) must not be negative"
            raise ValueError(msg)
        self.name = name
        self.cooldown_seconds = cooldown_seconds
        self._clock = clock
        self._down = False
        self._retry_at = 0.0
        self.outages = 0
        """How many outages began since start (each logged once)."""

    @property
    def down(self) -> bool:
        return self._down

    def allows(self) -> bool:
        """Whether to use the dependency now; while down, one caller per cooldown probes it."""
        if not self._down:
            return True
        now = self._clock()
        if now < self._retry_at:
            return False
        self._retry_at = now + self.cooldown_seconds  # the others keep skipping while it probes
        return True

    def failed(self, error: BaseException) -> None:
        self._retry_at = self._clock() + self.cooldown_seconds
        if self._down:
            logger.debug("%s still unavailable: %s", self.name, describe(error))
            return
        self._down = True
        self.outages += 1
        logger.warning(
            "%s unavailable, continuing without it (retrying every %.0f s): %s",
            self.name,
            self.cooldown_seconds,
            describe(error),
        )

    def succeeded(self) -> None:
        if self._down:
            self._down = False
            logger.info("%s available again", self.name)
