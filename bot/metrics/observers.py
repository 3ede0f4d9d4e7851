"""What the bot counts as it happens: each question (from its log record), each call of the
chat model and each sync (the answer core tells them: :class:`rag.Observer`), each review
decision (the review desk's ``on_decision``).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.metrics.catalog import STAGES, Catalog
from bot.questionlog import QuestionLog
from rag import ReviewRecord


@dataclass(frozen=True)
class CoreMetrics:
    """The answer core's observer (``rag/observer.py``): the chat model's calls and errors,
    the syncs."""

    catalog: Catalog

    def model_call(self, outcome: str) -> None:
        self.catalog.model_calls.labels(outcome).inc()

    def model_error(self, kind: str, *, retried: bool) -> None:
        self.catalog.model_errors.labels(kind).inc()
        if retried:
            self.catalog.model_retries.labels(kind).inc()

    def synced(self, source: str, outcome: str, seconds: float) -> None:
        self.catalog.sync_runs.labels(source, outcome).inc()
        self.catalog.sync_seconds.labels(source).observe(seconds)


@dataclass(frozen=True)
class QuestionMetrics:
    """One platform's questions (:class:`bot.questionlog.QuestionWatch`)."""

    catalog: Catalog
    platform: str

    def finished(self, log: QuestionLog) -> None:
        outcome = log.outcome
        if outcome is None:
            return  # help or small talk: no question was asked
        seconds = log.timings_ms.get("total", 0.0) / 1000
        self.catalog.questions.labels(self.platform, outcome).inc()
        self.catalog.question_seconds.labels(self.platform, outcome).observe(seconds)
        result = log.result
        if result is None:
            return
        provenance = result.provenance
        if provenance.cached_at is not None:
            self.catalog.cache_lookups.labels("hit").inc()
        elif provenance.reviewed_by is None:  # a reviewed answer is served before the cache
            self.catalog.cache_lookups.labels("miss").inc()
            for stage, ms in result.timings_ms.items():
                if stage in STAGES:
                    self.catalog.stage_seconds.labels(stage).observe(ms / 1000)


def review_decided(catalog: Catalog, record: ReviewRecord) -> None:
    """One review decision applied (the desk's ``on_decision``)."""
    catalog.review_decisions.labels(record.kind, record.verdict).inc()
    if record.latency_seconds is not None:
        catalog.review_seconds.labels(record.kind).observe(max(record.latency_seconds, 0.0))
