"""``python -m bot``: the one composition root of the chat edges (Slack, Feishu, or both).

    settings (environment, validated)  ->  Redis client (or None), shared
            redis=redis,
      -> neither SLACK_BOT_TOKEN nor FEISHU_APP_ID: local console chat over the same pipeline
      -> FEISHU_APP_ID: POST /feishu/events on the same app (bot/feishu/app.py: its own
         Open API client, review desk in FEISHU_REVIEW_CHAT, the neutral answering core)
      -> SLACK_BOT_TOKEN: at startup: HTTP session, AsyncWebClient(SLACK_API_URL, 429 retry),
         dedupe, review desk (bot/review/desk.py, sharing Redis; its Slack side
         bot/slack/review_board.py), Bolt app;
         HTTP mode serves POST /slack/events, Socket Mode connects out; both serve GET /healthz.
Everything opened here is closed here (aiohttp ``cleanup_ctx``), in reverse order.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Protocol, runtime_checkable

import aiohttp
from aiohttp import web
from dotenv import load_dotenv
from redis.asyncio import Redis
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.audience import Audiences
from bot.console import banner, chat
from bot.conversation import Conversations, FollowUpSwitch
from bot.dedupe import Dedupe
from bot.digest import WeekClaims, WeeklyDigest, weekly_report
from bot.feedback import Votes
from bot.feishu.app import add_feishu
from bot.feishu.retry import ApiRetry
from bot.feishu.settings import FeishuSettings
from bot.health import health_handler
from bot.ports import Answerer, SourceIndex
from bot.records import Background, RecordingAnswerer
from bot.review.desk import ReviewDesk
from bot.review.state import ReviewState
from bot.settings import BotSettings
from bot.slack.app import build_app
from bot.slack.client import RateLimitRetry, web_client
from bot.slack.digest import poster
from bot.slack.listeners import review
from bot.slack.review_board import SlackReviewBoard
from bot.slack.server import BOLT, HEALTH_PATH, BoltSlot, add_events_route
from bot.slack.usergroups import SlackUserGroups
from rag import (
    GuardedRedis,
    Pipeline,
    RedisStore,
    ReviewedAnswers,
    Rewriter,
    ScopesFile,
    SettingsError,
    guarded,
    read_scopes,
    record_store,
    secret,
)

logger = logging.getLogger("citebot")

REDIS_TIMEOUT_SECONDS = 0.5
"""Redis answers in a millisecond; waiting longer only delays replies while it is away."""


class ClosablePipeline(Answerer, Protocol):
    async def aclose(self) -> None: ...


@runtime_checkable
class Following(Protocol):
    """A pipeline that follows DOCS_DIR and INDEX_DIR (``rag.LivePipeline``) while it runs."""

    async def follow(self) -> None: ...


def redis_client(url: str | None) -> GuardedRedis | None:
    """The one Redis client of the process, behind the one failure policy (short timeouts,
    a breaker shared by the answer cache, dedupe, review state and reviewed answers, one
    warning per outage). The answer cache bounds its own calls tighter (0.2 s)."""
    if url is None:
        return None
    return GuardedRedis.from_url(
        url,
        connect_timeout_seconds=REDIS_TIMEOUT_SECONDS,
        socket_timeout_seconds=REDIS_TIMEOUT_SECONDS,
        timeout_seconds=REDIS_TIMEOUT_SECONDS,
    )


def reviewed_answers(redis: Redis | GuardedRedis | None) -> ReviewedAnswers:
    shared = guarded(redis)
    return ReviewedAnswers(RedisStore(shared)) if shared else ReviewedAnswers.in_memory()


def rewriter(settings: BotSettings, pipeline: Answerer) -> Rewriter:
    """Follow-ups rewritten by the configured chat model; by rules alone when there is none
    (the offline answerer is no rewriter)."""
    if settings.rag.llm_configured and isinstance(pipeline, Pipeline):
        return Rewriter(pipeline.generator)
    return Rewriter()


def review_desk(
    settings: BotSettings,
    *,
    client: AsyncWebClient,
    redis: GuardedRedis | None,
    reviewed: ReviewedAnswers,
    index: SourceIndex,
    records: Background | None = None,
) -> ReviewDesk:
    if settings.review_channel is None:
        msg = "REVIEW_CHANNEL is required for the review desk"
        raise SettingsError(msg)
    board = SlackReviewBoard(client, settings.review_channel)
    return ReviewDesk(
        board=board,
        askers=board,
        state=ReviewState(redis),
        index=index,
        reviewed=reviewed,
        reviewers=frozenset(settings.reviewers) or None,
        on_decision=None if records is None else records.review_writer(),
    )


def slack_app(
    settings: BotSettings,
    *,
    client: AsyncWebClient,
    pipeline: Answerer,
    redis: GuardedRedis | None,
    reviewed: ReviewedAnswers,
    with_review: bool,
    scopes: ScopesFile | None = None,
    records: Background | None = None,
) -> AsyncApp:
    """The Bolt app with its listeners, the review desk's included (unless ``with_review``
    is off, when an unverified draft is refused instead)."""
    groups = SlackUserGroups(client) if scopes is not None and scopes.usergroups else None
    audiences = Audiences(scopes, review_channel=settings.review_channel, groups=groups)
    desk: ReviewDesk | None = None
    if with_review:
        desk = review_desk(
            settings,
            client=client,
            redis=redis,
            reviewed=reviewed,
            index=pipeline.index,
            records=records,
        )
    else:
        logger.warning("review desk off: unverified answers are refused")
    return build_app(
        client=client,
        signing_secret=secret(settings.signing_secret) if settings.mode == "http" else None,
        answerer=pipeline,
        dedupe=Dedupe(redis),
        review=desk,
        register_extra=(lambda bolt: review.register(bolt, desk)) if desk else None,
        log_questions=settings.rag.log_questions,
        audiences=audiences,
        conversations=Conversations(redis),
        rewriter=rewriter(settings, pipeline),
        follow_ups=FollowUpSwitch(settings.follow_ups, scopes.follow_ups if scopes else {}),
        votes=Votes(redis, log_questions=settings.rag.log_questions),
    )


def _routes(
    app: web.Application,
    settings: BotSettings,
    *,
    index: SourceIndex,
    redis: GuardedRedis | None,
    feishu: FeishuSettings | None,
    scopes: ScopesFile | None,
) -> None:
    if settings.mode == "http":
        add_events_route(app)
    mode: str = settings.mode if settings.bot_token is not None else "feishu"
    if settings.bot_token is not None and feishu is not None:
        mode = f"{mode}+feishu"
    health = health_handler(
        index=index,
        redis=redis.client if redis else None,
        chat_model=settings.rag.chat_model_mode,
        mode=mode,
        scopes_version=None if scopes is None else scopes.version,
        details=getattr(index, "describe", None),  # a live index says how fresh it is
    )
    app.router.add_get(HEALTH_PATH, health)


def create_web_app(
    settings: BotSettings,
    *,
    pipeline: ClosablePipeline,
    redis: Redis | GuardedRedis | None,
    reviewed: ReviewedAnswers,
    rate_limit: RateLimitRetry | None = None,
    with_review: bool = True,
    feishu: FeishuSettings | None = None,
    feishu_retry: ApiRetry | None = None,
    scopes: ScopesFile | None = None,
    records: Background | None = None,
) -> web.Application:
    """Slack (SLACK_BOT_TOKEN), Feishu (FEISHU_APP_ID) or both, on one aiohttp app.

    ``scopes``: SCOPES_FILE as read at start; the pipeline must hold its catalog
    (``build_pipeline(scopes=scopes.catalog)``), or every scoped question finds nothing."""
    if settings.bot_token is None and feishu is None:
        msg = "create_web_app needs SLACK_BOT_TOKEN or FEISHU_APP_ID (validated settings)"
        raise SettingsError(msg)
    following = pipeline.follow if isinstance(pipeline, Following) else None
    if records is not None:
        pipeline = RecordingAnswerer(
            pipeline,
            records,
            record_questions=settings.rag.record_questions,
            log_questions=settings.rag.log_questions,
        )
    app = web.Application()
    redis = guarded(redis)  # one breaker for dedupe, review state and reviewed answers
    _routes(app, settings, index=pipeline.index, redis=redis, feishu=feishu, scopes=scopes)

    async def shared(_: web.Application) -> AsyncIterator[None]:
        # Added first, so closed last: both platforms answer through these until then.
        follower = None if following is None else asyncio.create_task(following())
        try:
            yield
        finally:
            if follower is not None:
                follower.cancel()
            closers: list[Callable[[], Awaitable[Any]]] = [pipeline.aclose]
            if redis is not None:
                closers.append(redis.aclose)
            for close in reversed(closers):
                try:
                    await close()
                except Exception:
                    logger.exception("closing %r failed", close)

    app.cleanup_ctx.append(shared)
    if settings.bot_token is not None:
        _add_slack(
            app,
            settings,
            pipeline=pipeline,
            redis=redis,
            reviewed=reviewed,
            rate_limit=rate_limit,
            with_review=with_review,
            scopes=scopes,
            records=records,
        )
    if feishu is not None:
        add_feishu(
            app,
            feishu,
            pipeline=pipeline,
            redis=redis,
            reviewed=reviewed,
            log_questions=settings.rag.log_questions,
            retry=feishu_retry,
            scopes=scopes,
        )
    return app


def _add_slack(
    app: web.Application,
    settings: BotSettings,
    *,
    pipeline: ClosablePipeline,
    redis: GuardedRedis | None,
    reviewed: ReviewedAnswers,
    rate_limit: RateLimitRetry | None,
    with_review: bool,
    scopes: ScopesFile | None,
    records: Background | None,
) -> None:
    if settings.bot_token is None or settings.review_channel is None:
        msg = "Slack needs SLACK_BOT_TOKEN and REVIEW_CHANNEL (validated settings)"
        raise SettingsError(msg)
    token = settings.bot_token.get_secret_value()
    slot = BoltSlot()
    app[BOLT] = slot

    async def slack(_: web.Application) -> AsyncIterator[None]:
        session = aiohttp.ClientSession()
        client = web_client(
            token, base_url=settings.api_url, session=session, rate_limit=rate_limit
        )
        slot.bolt = slack_app(
            settings,
            client=client,
            pipeline=pipeline,
            redis=redis,
            reviewed=reviewed,
            with_review=with_review,
            scopes=scopes,
            records=records,
        )
        socket: AsyncSocketModeHandler | None = None
        if settings.mode == "socket":
            socket = AsyncSocketModeHandler(
                slot.bolt, secret(settings.app_token), web_client=client
            )
            await socket.connect_async()  # type: ignore[no-untyped-call]
        digest = _digest(settings, client, redis, records)
        try:
            yield
        finally:
            if digest is not None:
                digest.cancel()
            if socket is not None:
                await socket.close_async()  # type: ignore[no-untyped-call]
            await session.close()

    app.cleanup_ctx.append(slack)


def _digest(
    settings: BotSettings,
    client: AsyncWebClient,
    redis: GuardedRedis | None,
    records: Background | None,
) -> asyncio.Task[None] | None:
    """The weekly digest in REVIEW_CHANNEL (DIGEST=weekly), checked in the background."""
    if settings.digest != "weekly" or records is None or settings.review_channel is None:
        return None
    weekly = WeeklyDigest(
        WeekClaims(None if redis is None else redis.client, settings.rag.index_dir),
        weekly_report(records.store, ReviewState(redis)),
        poster(client, settings.review_channel),
    )
    return asyncio.create_task(weekly.run())


async def _console(
    settings: BotSettings, pipeline: ClosablePipeline, redis: GuardedRedis | None
) -> int:
    greeting = banner(
        docs_dir=str(settings.rag.docs_dir),
        chunks=len(pipeline.index),
        chat_model=settings.rag.chat_model_mode,
    )
    try:
        return await chat(pipeline, sys.stdin, sys.stdout, greeting=greeting)
    finally:
        await pipeline.aclose()
        if redis is not None:
            await redis.aclose()


def main() -> int:
    load_dotenv()
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        settings = BotSettings.from_env(os.environ)
        feishu = FeishuSettings.from_env(os.environ)
        scopes = read_scopes(settings.rag.scopes_file)
    except SettingsError as error:
        print(f"citebot: {error}", file=sys.stderr)
        return 2
    from rag import serve_pipeline  # heavy (index, embeddings): after validation

    redis = redis_client(secret(settings.rag.redis_url))
    reviewed = reviewed_answers(redis)
    try:
        pipeline = serve_pipeline(
            settings.rag,
            redis=redis,
            reviewed=reviewed,
            scopes=None if scopes is None else scopes.catalog,
            full_index_first=settings.mode == "console" and feishu is None,
        )
    except (SettingsError, OSError) as error:
        print(f"citebot: cannot open the documents index: {error}", file=sys.stderr)
        return 2
    if settings.mode == "console" and feishu is None:
        return asyncio.run(_console(settings, pipeline, redis))
    records = Background(
        record_store(
            settings.rag.index_dir,
            None if redis is None else redis.client,
            retention_days=settings.rag.retention_days,
        )
    )
    app = create_web_app(
        settings,
        pipeline=pipeline,
        redis=redis,
        reviewed=reviewed,
        feishu=feishu,
        scopes=scopes,
        records=records,
    )
    if feishu is not None and feishu.mode == "ws":
        logger.info("Feishu: long connection to %s (port %d)", feishu.api_url, settings.port)
    elif feishu is not None:
        logger.info("Feishu: POST /feishu/events on port %d (%s)", settings.port, feishu.api_url)
    if settings.mode == "http":
        logger.info("HTTP mode: POST /slack/events and GET /healthz on port %d", settings.port)
    elif settings.mode == "socket":
        logger.info("Socket Mode: connecting to Slack; GET /healthz on port %d", settings.port)
    web.run_app(app, port=settings.port, access_log=None, print=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
