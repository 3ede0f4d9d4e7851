"""Feishu on the bot's web app: the events route and, at startup, what answers behind it.

    add_feishu(app, config, …)
      route   POST /feishu/events  (served once startup has built the handler; 503 before);
            in ws mode no route: the long connection (bot/feishu/longconn.py) is opened instead
      startup aiohttp session -> FeishuApi (FEISHU_API_URL, tenant token, retries)
              -> review desk with its Feishu board (when FEISHU_REVIEW_CHAT is set)
              -> Answering (the neutral core) -> FeishuEvents; the bot's open_id fetched
      cleanup running answers finished (or cancelled after a grace period), session closed
The pipeline, Redis and the reviewed-answer store are shared with Slack and owned by the
composition root (bot/root/web.py), which closes them.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable

import aiohttp
from aiohttp import web

from bot.answering import Answering
from bot.audience import Audiences
from bot.feishu.actions import Actions
from bot.feishu.api import FeishuApi, feishu_api
from bot.feishu.inbound import Gate
from bot.feishu.longconn import LongConnection
from bot.feishu.review_board import FeishuBoard
from bot.feishu.server import EVENTS_PATH, FeishuEvents, Tasks, feishu_dedupe
from bot.feishu.settings import FeishuSettings
from bot.metrics.exposition import Metrics
from bot.ports import Answerer
from bot.review.desk import ReviewDesk
from bot.review.state import ReviewState
from rag import (
    HTTP_ERRORS,
    GuardedRedis,
    HttpRetry,
    ReviewedAnswers,
    ReviewRecord,
    ScopesFile,
    http_reason,
)

logger = logging.getLogger(__name__)

REVIEW_KEYS = "feishu:review:"
"""After REDIS_KEY_PREFIX: Feishu's open reviews apart from Slack's (each platform lists and
decides its own)."""


class FeishuSlot:
    """The events handler, filled in at startup (the route must exist before the app runs)."""

    def __init__(self) -> None:
        self.events: FeishuEvents | None = None

    async def handle(self, request: web.Request) -> web.Response:
        if self.events is None:
            return web.json_response({"msg": "starting"}, status=503)
        return await self.events.handle(request)


FEISHU = web.AppKey("feishu", FeishuSlot)


def review_desk(
    config: FeishuSettings,
    api: FeishuApi,
    *,
    redis: GuardedRedis | None,
    reviewed: ReviewedAnswers,
    pipeline: Answerer,
    on_decision: Callable[[ReviewRecord], None] | None = None,
) -> ReviewDesk | None:
    """``on_decision``: where each applied decision is recorded for ``rag report`` (the same
    record store as Slack's, so review latency covers both platforms)."""
    if config.review_chat is None:
        logger.warning("FEISHU_REVIEW_CHAT unset: unverified Feishu answers are refused")
        return None
    board = FeishuBoard(api, config.review_chat)
    return ReviewDesk(
        board=board,
        askers=board,
        state=ReviewState(redis, prefix=None if redis is None else redis.key_prefix + REVIEW_KEYS),
        index=pipeline.index,
        reviewed=reviewed,
        reviewers=frozenset(config.reviewers) or None,
        on_decision=on_decision,
    )


async def _greet(events: FeishuEvents) -> None:
    """The bot's own open_id, fetched at start so wrong credentials show up in the log now."""
    try:
        logger.info("Feishu: bot open_id %s", await events.bot_open_id())
    except HTTP_ERRORS as error:  # the first event tries again
        logger.error(
            "Feishu: bot info unavailable (%s); check FEISHU_APP_ID/SECRET", http_reason(error)
        )


async def _long_connection(
    config: FeishuSettings, session: aiohttp.ClientSession, events: FeishuEvents
) -> LongConnection | None:
    """In ws mode, the connection open (raises when Feishu refuses the credentials)."""
    if config.mode != "ws":
        return None
    link = LongConnection(
        session,
        base_url=config.api_url,
        app_id=config.app_id,
        app_secret=config.secret("app_secret"),
        dispatch=events.dispatch,
    )
    await link.start()
    return link


def add_feishu(
    app: web.Application,
    config: FeishuSettings,
    *,
    pipeline: Answerer,
    redis: GuardedRedis | None,
    reviewed: ReviewedAnswers,
    log_questions: bool = False,
    retry: HttpRetry | None = None,
    scopes: ScopesFile | None = None,
    on_decision: Callable[[ReviewRecord], None] | None = None,
    metrics: Metrics | None = None,
) -> None:
    """``scopes``: SCOPES_FILE; chats and people as in Slack, FEISHU_REVIEW_CHAT trusted with
    every scope. ``on_decision``: records each review decision for ``rag report``;
    ``metrics`` counts the questions and watches the review desk's queue."""
    audiences = Audiences(scopes, review_channel=config.review_chat)
    slot = FeishuSlot()
    app[FEISHU] = slot
    gate: Gate | None = None
    if config.mode == "http":
        # No route in ws mode: an unsigned path in would be a way around the connection.
        app.router.add_post(EVENTS_PATH, slot.handle)
        gate = Gate(config.secret("encrypt_key"), config.secret("verification_token"))

    async def feishu(_: web.Application) -> AsyncIterator[None]:
        session = aiohttp.ClientSession()
        tasks = Tasks()
        api = feishu_api(session, config, retry)
        desk = review_desk(
            config, api, redis=redis, reviewed=reviewed, pipeline=pipeline, on_decision=on_decision
        )
        if metrics is not None and desk is not None:
            metrics.watch_reviews(desk.pending)
        watch = None if metrics is None else metrics.questions("feishu")
        events = FeishuEvents(
            gate=gate,
            api=api,
            answering=Answering(pipeline, review=desk, log_questions=log_questions, watch=watch),
            dedupe=feishu_dedupe(redis),
            actions=Actions(pipeline.index, desk, spawn=tasks.spawn, audiences=audiences),
            tasks=tasks,
            audiences=audiences,
        )
        await _greet(events)
        slot.events = events
        link = await _long_connection(config, session, events)
        try:
            yield
        finally:
            slot.events = None
            if link is not None:
                await link.close()
            await tasks.close()
            await session.close()

    app.cleanup_ctx.append(feishu)
