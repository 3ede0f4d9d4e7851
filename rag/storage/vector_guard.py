"""The vector store's failure policy: like Redis's, one warning per outage and no waiting.

A Qdrant that is down or slow must not stop questions: every call goes through
:class:`GuardedCalls`, which bounds it (the client's own timeout), opens one
:class:`~rag.storage.redis_guard.Breaker` on a failure (one warning line per outage, skipped
for ``cooldown_seconds``, then one caller probes) and raises :class:`VectorStoreUnavailable`.
The search then answers from what the process holds, the lexical index
(:mod:`rag.search.candidates`); a build fails and the served index stays.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from rag.errors import CitebotError
from rag.storage.redis_guard import Breaker

T = TypeVar("T")


class VectorStoreUnavailable(CitebotError):
    """The vector store was skipped (down, failed recently) or failed just now; the breaker
    has been told."""


class GuardedCalls:
    """Runs calls to one store behind one breaker; ``failures``: what a sick store raises."""

    def __init__(
        self,
        name: str,
        failures: tuple[type[BaseException], ...],
        *,
        cooldown_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.failures = failures
        self.breaker = Breaker(name, cooldown_seconds=cooldown_seconds, clock=clock)

    def run(self, call: Callable[[], T]) -> T:
        if not self.breaker.allows():
            raise VectorStoreUnavailable
        try:
            value = call()
        except self.failures as error:
            self.breaker.failed(error)
            raise VectorStoreUnavailable from error
        self.breaker.succeeded()
        return value

    @property
    def state(self) -> str:
        """``ok`` or ``unreachable`` (since the last failure, until a call succeeds)."""
        return "unreachable" if self.breaker.down else "ok"
