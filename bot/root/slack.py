"""Slack on the web app (SLACK_BOT_TOKEN): built at startup, closed at cleanup.

    startup  HTTP session -> AsyncWebClient (SLACK_API_URL, 429 retry) -> auth.test: a refused
             token stops start-up, the identity goes to /healthz (bot/slack/identity.py)
             -> review desk in
             REVIEW_CHANNEL (bot/review/desk.py; its Slack side bot/slack/review_board.py)
             -> Bolt app (bot/slack/app.py) -> Socket Mode connected (SLACK_APP_TOKEN), or
             POST /slack/events served (bot/slack/server.py, routed by bot/root/web.py)
             -> the weekly digest in the background (DIGEST=weekly)
    cleanup  digest cancelled, Socket Mode closed, session closed
The pipeline and Redis are shared with Feishu and closed by bot/root/web.py.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager

import aiohttp
from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.audience import Audiences
from bot.conversation import Conversations, FollowUpSwitch
from bot.dedupe import Dedupe
from bot.digest import WeekClaims, WeeklyDigest, weekly_report
from bot.feedback import feedback_for
from bot.metrics.exposition import Metrics
from bot.ports import Answerer
from bot.questionlog import QuestionWatch
from bot.records import Background
from bot.review.desk import ReviewDesk
from bot.review.state import ReviewState
from bot.root.config import Config
from bot.root.metering import decisions
from bot.root.services import Seams
from bot.slack.app import build_app
from bot.slack.client import web_client
from bot.slack.digest import poster
from bot.slack.identity import TokenRefused, check_token
from bot.slack.listeners import review
from bot.slack.review_board import SlackReviewBoard
from bot.slack.server import BOLT, BoltSlot
from bot.slack.usergroups import SlackUserGroups
from rag import (
    GuardedRedis,
    ReviewedAnswers,
    Rewriter,
    SettingsError,
    secret,
    vote_store,
)

logger = logging.getLogger("citebot")

UNKNOWN = "unknown: auth.test did not answer at start"

BOLT_READS = ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET")
"""What ``AsyncApp()`` reads from ``os.environ`` on its own when it is not given them.

Our settings are read once, here at the edge, and handed to Bolt as objects: the client (with
the token, SLACK_API_URL and the 429 retry) and the signing secret. Bolt still falls back to
the environment: ``token = token or os.environ.get("SLACK_BOT_TOKEN")``, then, because a
client was given too, logs "As you gave `client` as well, `token` will be unused." on every
start; and with SLACK_CLIENT_ID and SLACK_CLIENT_SECRET both set it silently switches to OAuth
installs. Hiding these while the app is constructed leaves Bolt only what we gave it."""


@contextmanager
def _settings_only() -> Iterator[None]:
    """The environment without :data:`BOLT_READS` for the duration (restored afterwards)."""
    hidden = {name: os.environ.pop(name) for name in BOLT_READS if name in os.environ}
    try:
        yield
    finally:
        os.environ.update(hidden)


def review_desk(
    config: Config,
    *,
    client: AsyncWebClient,
    redis: GuardedRedis | None,
    reviewed: ReviewedAnswers,
    pipeline: Answerer,
    records: Background | None,
    metrics: Metrics,
) -> ReviewDesk:
    channel = config.bot.review_channel
    if channel is None:
        msg = "REVIEW_CHANNEL is required for the review desk"
        raise SettingsError(msg)
    board = SlackReviewBoard(client, channel)
    desk = ReviewDesk(
        board=board,
        askers=board,
        state=ReviewState(redis),
        index=pipeline.index,
        reviewed=reviewed,
        reviewers=frozenset(config.bot.reviewers) or None,
        on_decision=decisions(metrics, records),
    )
    metrics.watch_reviews(desk.pending)
    return desk


def slack_app(
    config: Config,
    *,
    client: AsyncWebClient,
    pipeline: Answerer,
    redis: GuardedRedis | None,
    reviewed: ReviewedAnswers,
    with_review: bool,
    records: Background | None,
    follow_ups: Rewriter,
    metrics: Metrics,
) -> AsyncApp:
    """The Bolt app with its listeners, the review desk's included (unless ``with_review``
    is off, when an unverified draft is refused instead); its questions and review decisions
    counted in ``metrics``."""
    settings, scopes = config.bot, config.scopes
    groups = SlackUserGroups(client) if scopes is not None and scopes.usergroups else None
    audiences = Audiences(scopes, review_channel=settings.review_channel, groups=groups)
    desk: ReviewDesk | None = None
    if with_review:
        desk = review_desk(
            config,
            client=client,
            redis=redis,
            reviewed=reviewed,
            pipeline=pipeline,
            records=records,
            metrics=metrics,
        )
    else:
        logger.warning("review desk off: unverified answers are refused")
    watch = metrics.questions("slack")
    with _settings_only():
        return _build(config, client, pipeline, redis, desk, audiences, follow_ups, watch)


def _build(
    config: Config,
    client: AsyncWebClient,
    pipeline: Answerer,
    redis: GuardedRedis | None,
    desk: ReviewDesk | None,
    audiences: Audiences,
    follow_ups: Rewriter,
    watch: QuestionWatch,
) -> AsyncApp:
    settings, scopes = config.bot, config.scopes
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
        rewriter=follow_ups,
        follow_ups=FollowUpSwitch(settings.follow_ups, scopes.follow_ups if scopes else {}),
        feedback=feedback_for(
            settings.rag, redis=redis, answerer=pipeline, desk=desk, index=pipeline.index
        ),
        watch=watch,
    )


def add_slack(
    app: web.Application,
    config: Config,
    *,
    pipeline: Answerer,
    redis: GuardedRedis | None,
    reviewed: ReviewedAnswers,
    seams: Seams,
    records: Background | None,
    follow_ups: Rewriter,
    metrics: Metrics,
    identities: dict[str, object] | None = None,
) -> None:
    """The Bolt app in ``app[BOLT]`` from startup on (the events route reads it there);
    ``identities["slack"]``: who the bot is in Slack (``auth.test``), for ``/healthz``."""
    settings = config.bot
    if settings.bot_token is None or settings.review_channel is None:
        msg = "Slack needs SLACK_BOT_TOKEN and REVIEW_CHANNEL (validated settings)"
        raise SettingsError(msg)
    token = settings.bot_token.get_secret_value()
    slot = BoltSlot()
    app[BOLT] = slot

    async def slack(_: web.Application) -> AsyncIterator[None]:
        session = aiohttp.ClientSession()
        client = web_client(
            token, base_url=settings.api_url, session=session, rate_limit=seams.rate_limit
        )
        await _identify(client, session, identities)
        slot.bolt = slack_app(
            config,
            client=client,
            pipeline=pipeline,
            redis=redis,
            reviewed=reviewed,
            with_review=seams.with_review,
            records=records,
            follow_ups=follow_ups,
            metrics=metrics,
        )
        socket: AsyncSocketModeHandler | None = None
        if settings.mode == "socket":
            socket = AsyncSocketModeHandler(
                slot.bolt, secret(settings.app_token), web_client=client
            )
            await socket.connect_async()  # type: ignore[no-untyped-call]
        digest = weekly_digest(config, client, redis, records)
        try:
            yield
        finally:
            if digest is not None:
                digest.cancel()
            if socket is not None:
                await socket.close_async()  # type: ignore[no-untyped-call]
            await session.close()

    app.cleanup_ctx.append(slack)


async def _identify(
    client: AsyncWebClient, session: aiohttp.ClientSession, identities: dict[str, object] | None
) -> None:
    """``auth.test``: a refused token stops start-up (the session closed first); the identity
    goes to ``identities["slack"]`` for ``/healthz``."""
    try:
        identity = await check_token(client)
    except TokenRefused:
        await session.close()
        raise
    if identities is not None:
        identities["slack"] = UNKNOWN if identity is None else identity.describe()


def weekly_digest(
    config: Config,
    client: AsyncWebClient,
    redis: GuardedRedis | None,
    records: Background | None,
) -> asyncio.Task[None] | None:
    """The weekly digest in REVIEW_CHANNEL (DIGEST=weekly), checked in the background."""
    settings = config.bot
    if settings.digest != "weekly" or records is None or settings.review_channel is None:
        return None
    # The votes every process writes (Redis, else INDEX_DIR), as rag report reads them.
    votes = vote_store(
        redis, retention_days=settings.rag.retention_days, index_dir=settings.rag.index_dir
    )
    weekly = WeeklyDigest(
        WeekClaims(redis, settings.rag.index_dir),
        weekly_report(records.store, ReviewState(redis), votes),
        poster(client, settings.review_channel),
    )
    return asyncio.create_task(weekly.run())
