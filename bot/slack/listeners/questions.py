"""Listeners for questions: ``app_mention`` and ``message`` events (thin: parse, dedupe, hand on).

Bolt acknowledges events before these run (``process_before_response=False``), so Slack gets
its 200 at once, retries included. A retry or twin event (same ``event_id``, or same channel
and ``ts``) finds its keys claimed and stops here: it is acknowledged, not answered again.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_sdk.web.async_client import AsyncWebClient

from bot.dedupe import Dedupe, event_key, message_key
from bot.slack.answering import Responder
from bot.slack.events import incoming

logger = logging.getLogger(__name__)


def register(app: AsyncApp, *, responder: Responder, dedupe: Dedupe) -> None:
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
        await responder.respond(client, asked)

    # "message" without a subtype filter: edits, joins and bot posts are acknowledged and
    # ignored here, rather than answered with 404 (which Slack retries).
    app.event("app_mention")(on_event)
    app.event("message")(on_event)
