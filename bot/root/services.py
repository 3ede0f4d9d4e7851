"""What every platform shares, built once from the :class:`~bot.root.config.Config`.

    metrics  ->  Redis client (or None)  ->  reviewed answers  ->  answer pipeline (observed)
                                                                     (+ question records)

One Redis client for the process, behind the one failure policy (:func:`redis_client`); the
pipeline is ``rag.serve_pipeline``'s, which follows DOCS_DIR while the bot runs. The web app
(:mod:`bot.root.web`) or the console (:mod:`bot.root.console`) closes what is opened here.
:class:`Seams` lists what a test or benchmark may put in their place.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from bot.metrics.exposition import Metrics
from bot.metrics.observers import CoreMetrics
from bot.ports import Answerer
from bot.records import Background
from bot.root.config import Config
from bot.root.metering import index_view, open_metrics
from rag import (
    CitebotError,
    GuardedRedis,
    LivePipeline,
    Pipeline,
    ReviewedAnswers,
    Rewriter,
    SettingsError,
    record_store,
    secret,
)

if TYPE_CHECKING:  # the SDKs load only when a platform is served, not for the console
    from bot.slack.client import RateLimitRetry
    from rag import HttpRetry

REDIS_TIMEOUT_SECONDS = 0.5
"""Redis answers in a millisecond; waiting longer only delays replies while it is away."""


def rewriter(config: Config, pipeline: Answerer) -> Rewriter:
    """Follow-ups rewritten by the configured chat model; by rules alone when there is none
    (the offline answerer is no rewriter). ``pipeline``: as built, before the question records
    wrap it (``python -m bot`` serves a live one)."""
    if isinstance(pipeline, LivePipeline):
        pipeline = pipeline.pipeline
    if config.bot.rag.llm_configured and isinstance(pipeline, Pipeline):
        return Rewriter(pipeline.generator)
    return Rewriter()


class ClosablePipeline(Answerer, Protocol):
    async def aclose(self) -> None: ...


@runtime_checkable
class Following(Protocol):
    """A pipeline that follows DOCS_DIR and INDEX_DIR (``rag.LivePipeline``) while it runs."""

    async def follow(self) -> None: ...


class IndexUnavailable(CitebotError):
    """The documents index could not be opened or built; the message says why."""


PipelineFactory = Callable[
    [Config, GuardedRedis | None, ReviewedAnswers, CoreMetrics], ClosablePipeline
]
"""Builds the pipeline; :class:`CoreMetrics` hears the chat model's calls and the syncs."""
RecordsFactory = Callable[[Config, GuardedRedis | None], Background | None]


def redis_client(url: str | None, key_prefix: str) -> GuardedRedis | None:
    """The one Redis client of the process, behind the one failure policy (short timeouts,
    a breaker shared by the answer cache, dedupe, review state and reviewed answers, one
    warning per outage), every key under ``key_prefix`` (REDIS_KEY_PREFIX). The answer cache
    bounds its own calls tighter (0.2 s)."""
    if url is None:
        return None
    return GuardedRedis.from_url(
        url,
        key_prefix=key_prefix,
        connect_timeout_seconds=REDIS_TIMEOUT_SECONDS,
        socket_timeout_seconds=REDIS_TIMEOUT_SECONDS,
        timeout_seconds=REDIS_TIMEOUT_SECONDS,
    )


def reviewed_answers(redis: GuardedRedis | None) -> ReviewedAnswers:
    return ReviewedAnswers.over(redis)


def serving_pipeline(
    config: Config, redis: GuardedRedis | None, reviewed: ReviewedAnswers, observer: CoreMetrics
) -> ClosablePipeline:
    """The live pipeline over DOCS_DIR: on a folder whose vectors are missing it answers from
    the lexical index at once and embeds in the background (the console too, showing progress:
    :mod:`bot.root.console`)."""
    from rag import serve_pipeline  # heavy (index, embeddings): imported once settings are valid

    return serve_pipeline(
        config.bot.rag,
        redis=redis,
        reviewed=reviewed,
        scopes=None if config.scopes is None else config.scopes.catalog,
        sources=config.sources,
        progress=sys.stderr if config.console else None,
        observer=observer,
    )


def question_records(config: Config, redis: GuardedRedis | None) -> Background:
    """Records for ``rag report``: in Redis when there is one, else under INDEX_DIR."""
    rag = config.bot.rag
    return Background(record_store(rag.index_dir, redis, retention_days=rag.retention_days))


@dataclass(frozen=True)
class Seams:
    """What a test or a benchmark may swap; ``python -m bot`` runs with the defaults."""

    pipeline: PipelineFactory = serving_pipeline
    records: RecordsFactory = question_records
    rate_limit: RateLimitRetry | None = None
    """Slack's 429 waits (``None``: slept as Slack asks)."""
    feishu_retry: HttpRetry | None = None
    """The Open API client's retry waits (``None``: slept)."""
    with_review: bool = True
    """Off: no review desk, an unverified draft is refused (scenarios about answering alone)."""


@dataclass
class Services:
    redis: GuardedRedis | None
    reviewed: ReviewedAnswers
    pipeline: ClosablePipeline
    metrics: Metrics = field(default_factory=Metrics)
    """:func:`open_services` makes them for what is served; this default counts none ahead."""

    async def aclose(self) -> None:
        await self.pipeline.aclose()
        if self.redis is not None:
            await self.redis.aclose()


def open_services(config: Config, pipeline: PipelineFactory = serving_pipeline) -> Services:
    """Raises :class:`IndexUnavailable` when the documents cannot be indexed."""
    metrics = open_metrics(config)
    rag = config.bot.rag
    redis = redis_client(secret(rag.redis_url), rag.redis_key_prefix)
    reviewed = reviewed_answers(redis)
    try:
        answerer = pipeline(config, redis, reviewed, metrics.core)
    except (SettingsError, OSError) as error:
        raise IndexUnavailable(str(error)) from error
    metrics.watch_index(index_view(answerer))
    return Services(redis=redis, reviewed=reviewed, pipeline=answerer, metrics=metrics)
