"""The aiohttp app: every route the bot serves, and the order things open and close.

routes   POST /slack/events (HTTP mode; bot/slack/server.py), POST /feishu/events (Feishu
         http mode; bot/feishu/app.py), GET /healthz (bot/health.py) and GET /metrics
         (bot/metrics/) in every mode, Socket Mode and Feishu's long connection included
startup  shared: the pipeline starts following DOCS_DIR; then Slack (bot/root/slack.py)
         and Feishu (bot/feishu/app.py) build their clients and listeners
cleanup  in reverse: the platforms close, then the follower, the pipeline (its question
         records drained) and the Redis client
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from aiohttp import web

from bot.feishu.app import add_feishu
from bot.health import health_handler
from bot.metrics.exposition import METRICS_PATH, Metrics, metrics_handler
from bot.ports import SourceIndex
from bot.records import RecordingAnswerer
from bot.root.config import Config
from bot.root.metering import decisions
from bot.root.services import ClosablePipeline, Following, Seams, Services, rewriter
from bot.root.slack import add_slack
from bot.slack.server import HEALTH_PATH, add_events_route
from rag import GuardedRedis, SettingsError

logger = logging.getLogger("citebot")


def create_web_app(
    config: Config, services: Services, seams: Seams | None = None
) -> web.Application:
    """Slack (SLACK_BOT_TOKEN), Feishu (FEISHU_APP_ID) or both, on one aiohttp app.

    The pipeline must hold SCOPES_FILE's catalog (:func:`bot.root.services.serving_pipeline`
    gives it), or every scoped question finds nothing."""
    seams = seams or Seams()
    settings = config.bot
    if settings.bot_token is None and config.feishu is None:
        msg = "create_web_app needs SLACK_BOT_TOKEN or FEISHU_APP_ID (validated settings)"
        raise SettingsError(msg)
    pipeline: ClosablePipeline = services.pipeline
    records = seams.records(config, services.redis)
    if records is not None:
        pipeline = RecordingAnswerer(
            pipeline,
            records,
            record_questions=settings.rag.record_questions,
            log_questions=settings.rag.log_questions,
        )
    app = web.Application()
    identities: dict[str, object] = {}  # who the bot is on each platform, filled at startup
    _routes(
        app,
        config,
        identities=identities,
        index=pipeline.index,
        redis=services.redis,
        sources=getattr(services.pipeline, "sources", None),
        metrics=services.metrics,
    )
    app.cleanup_ctx.append(_shared(services, pipeline))  # first, so closed last
    if settings.bot_token is not None:
        add_slack(
            app,
            config,
            pipeline=pipeline,
            redis=services.redis,
            reviewed=services.reviewed,
            seams=seams,
            records=records,
            follow_ups=rewriter(config, services.pipeline),
            metrics=services.metrics,
            identities=identities,
        )
    if config.feishu is not None:
        add_feishu(
            app,
            config.feishu,
            pipeline=pipeline,
            redis=services.redis,
            reviewed=services.reviewed,
            log_questions=settings.rag.log_questions,
            retry=seams.feishu_retry,
            scopes=config.scopes,
            on_decision=decisions(services.metrics, records),
            metrics=services.metrics,
        )
    return app


def _routes(
    app: web.Application,
    config: Config,
    *,
    identities: Mapping[str, object],
    index: SourceIndex,
    redis: GuardedRedis | None,
    sources: Callable[[], list[dict[str, Any]]] | None,
    metrics: Metrics,
) -> None:
    if config.bot.mode == "http":
        add_events_route(app)
    health = health_handler(
        index=index,
        redis=redis.client if redis else None,
        chat_model=config.bot.rag.chat_model_mode,
        mode=config.mode,
        scopes_version=None if config.scopes is None else config.scopes.version,
        details=getattr(index, "describe", None),  # a live index says how fresh it is
        sources=sources,  # the wikis a live pipeline syncs (SOURCES_FILE)
        identities=identities,
    )
    app.router.add_get(HEALTH_PATH, health)
    app.router.add_get(METRICS_PATH, metrics_handler(metrics))


def _shared(
    services: Services, pipeline: ClosablePipeline
) -> Callable[[web.Application], AsyncIterator[None]]:
    """What both platforms answer through: the pipeline following DOCS_DIR while the app runs,
    then closed with the Redis client."""
    raw = services.pipeline
    following = raw.follow if isinstance(raw, Following) else None

    async def shared(_: web.Application) -> AsyncIterator[None]:
        follower = None if following is None else asyncio.create_task(following())
        try:
            yield
        finally:
            if follower is not None:
                follower.cancel()
            closers: list[Callable[[], Awaitable[Any]]] = [pipeline.aclose]
            if services.redis is not None:
                closers.append(services.redis.aclose)
            for close in reversed(closers):
                try:
                    await close()
                except Exception:
                    # Shutting down: one part failing to close must not keep the others open.
                    logger.exception("closing %r failed", close)

    return shared
