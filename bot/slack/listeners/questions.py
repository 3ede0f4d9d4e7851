"""Listeners for questions: ``app_mention`` and ``message`` events (thin: parse, dedupe, hand on).

Bolt acknowledges events before these run (``process_before_response=False``), so Slack gets
its 200 at once, retries included. A retry or twin event (same ``event_id``, or same channel
and ``ts``) finds its keys claimed and stops here: it is acknowledged, not answered again.
The question, free of Slack's markup, goes to the platform-neutral :mod:`bot.answering` with
the asker's thread in Slack (:class:`bot.slack.thread.SlackThread`).
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_sdk.web.async_client import AsyncWebClient

from bot.answering import Answering
from bot.dedupe import Dedupe, event_key, message_key
from bot.ports import Origin
from bot.slack.incoming import Incoming, incoming
from bot.slack.mrkdwn import clean_question
from bot.slack.thread import SlackThread

logger = logging.getLogger(__name__)


def origin(asked: Incoming) -> Origin:
    return Origin(
        channel=asked.channel,
        thread_ts=asked.follow_up_thread,
        message_ts=asked.ts,
        user=asked.user,
        channel_type=asked.channel_type,
        question=clean_question(asked.text),
    )


async def answer_in_slack(answering: Answering, client: AsyncWebClient, asked: Incoming) -> None:
    await answering.answer(asked.event_id, origin(asked), SlackThread(client, asked))


def register(app: AsyncApp, *, answering: Answering, dedupe: Dedupe) -> None:
    async def on_event(
        body: dict[str, Any],
        event: dict[str, Any],
        context: AsyncBoltContext,
        client: AsyncWebClient,
    ) -> None:
        asked = incoming(body, event, bot_user_id=context.bot_user_id)
        if asked is None:
            return
        keys = (event_key(asked.event_id), message_key(asked.channel, asked.ts))
        if not await dedupe.claim(*keys):
            logger.info("duplicate delivery of %s (event %s) ignored", keys[1], asked.event_id)
            return
        await answer_in_slack(answering, client, asked)

    # "message" without a subtype filter: edits, joins and bot posts are acknowledged and
    # ignored here, rather than answered with 404 (which Slack retries).
    app.event("app_mention")(on_event)
    app.event("message")(on_event)
