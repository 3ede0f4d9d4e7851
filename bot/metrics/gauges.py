"""The gauges read when Prometheus scrapes: the served index and the review queue.

They are set just before each scrape from what the bot holds (the index, the review desks'
open reviews: shared in Redis, so one process sees every process's queue), never counted up
and down as things happen: a count kept by hand drifts after a restart or a Redis flush.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from bot.metrics.catalog import REVIEW_KINDS, Catalog
from bot.review.records import OpenReview


@dataclass(frozen=True, slots=True)
class IndexFacts:
    """What the index being served says about itself."""

    passages: int
    documents: int
    version_time: float | None = None
    """When its version was swapped in (epoch seconds); ``None``: not known (a fixed index)."""
    backfill_remaining: int = 0
    """Passages still waiting for their dense vectors."""


IndexView = Callable[[], IndexFacts]
Pending = Callable[[], Awaitable[Sequence[OpenReview]]]
"""A review desk's open reviews (:meth:`bot.review.desk.ReviewDesk.pending`)."""


def set_index(catalog: Catalog, facts: IndexFacts) -> None:
    catalog.index_passages.set(facts.passages)
    catalog.index_documents.set(facts.documents)
    if facts.version_time is not None:
        catalog.index_version_time.set(facts.version_time)
    catalog.backfill_remaining.set(facts.backfill_remaining)


async def set_reviews(catalog: Catalog, desks: Sequence[Pending], now: float) -> None:
    """The open reviews of every desk (Slack's and Feishu's share Redis: each counted once)."""
    waiting: dict[str, OpenReview] = {}
    for pending in desks:
        for review in await pending():
            waiting[review.ticket.review_id] = review
    for kind in REVIEW_KINDS:
        count = sum(1 for review in waiting.values() if review.ticket.kind == kind)
        catalog.review_queue.labels(kind).set(count)
    created = [review.ticket.created for review in waiting.values() if review.ticket.created > 0]
    catalog.review_oldest.set(max(now - min(created), 0.0) if created else 0.0)
