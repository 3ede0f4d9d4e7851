"""What a long-running process may count about the answer core, without rag knowing how.

The bot hands an :class:`Observer` to :func:`rag.serve_pipeline` when it composes itself
(``bot/metrics/`` turns the calls into Prometheus metrics); every other caller gets
:data:`UNOBSERVED`, which does nothing, so rag keeps no counters of its own and its tests need
no metrics library. Only what the edge cannot see in the values it already gets is told here:
the chat model's requests, retries and failures (inside one ``answer()``) and each wiki sync
of the background follower. A result's verdict and ``timings_ms`` travel on the result.

Each method is called where the event happens, on whatever thread that is; it must return at
once and never raise.
"""

from __future__ import annotations

from typing import Literal, Protocol

ModelOutcome = Literal["ok", "failed"]

ERROR_KINDS = (
    "http_429",
    "http_4xx",
    "http_5xx",
    "timeout",
    "connection",
    "empty_reply",
    "malformed",
    "deadline",
    "other",
)
"""Every ``kind`` :meth:`Observer.model_error` is called with (a bounded set: a metric label)."""


class Observer(Protocol):
    def model_call(self, outcome: ModelOutcome) -> None:
        """One call to the chat model ended, its retries included: ``ok`` with a reply,
        ``failed`` when it raised :class:`rag.GenerationError`."""

    def model_error(self, kind: str, *, retried: bool) -> None:
        """One request to the chat model failed (``kind``: one of :data:`ERROR_KINDS`);
        ``retried``: another attempt follows."""

    def synced(self, source: str, outcome: str, seconds: float) -> None:
        """One sync of the SOURCES_FILE source named ``source`` ended: ``ok``, ``partial`` (some
        documents failed) or ``failed`` (nothing could be listed), after ``seconds``."""


class Unobserved:
    """Hears everything, keeps nothing: the default of every command that serves no metrics."""

    def model_call(self, outcome: ModelOutcome) -> None:
        return None

    def model_error(self, kind: str, *, retried: bool) -> None:
        return None

    def synced(self, source: str, outcome: str, seconds: float) -> None:
        return None


UNOBSERVED: Observer = Unobserved()
