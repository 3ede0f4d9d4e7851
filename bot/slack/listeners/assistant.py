"""The bot's DM as Slack's AI surface: when a person opens it (``assistant_thread_started``),
suggested prompts drawn from the documents they may see (:mod:`bot.suggestions`) are set with
``assistant.threads.setSuggestedPrompts``. Their messages there arrive as ``message.im`` in the
thread and are answered like any DM (:mod:`bot.slack.listeners.questions`)."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.audience import Audiences
from bot.ports import SourceIndex
from bot.slack.errors import SEND_ERRORS
from bot.suggestions import suggested_prompts

logger = logging.getLogger(__name__)

PROMPTS_TITLE = "可以这样问 · Try asking"


def register(app: AsyncApp, *, index: SourceIndex, audiences: Audiences | None = None) -> None:
    place = audiences or Audiences(None)

    @app.event("assistant_thread_started")
    async def on_thread_started(event: dict[str, Any], client: AsyncWebClient) -> None:
        thread = event.get("assistant_thread") or {}
        channel, thread_ts = thread.get("channel_id"), thread.get("thread_ts")
        user = thread.get("user_id")
        if not (isinstance(channel, str) and isinstance(thread_ts, str) and isinstance(user, str)):
            return
        scope = await place.direct(user)
        if scope is None:  # DMs with this person are not enabled: nothing to suggest
            return
        prompts = suggested_prompts(index.chunks, scope.allows)
        if not prompts:
            return
        try:
            await client.assistant_threads_setSuggestedPrompts(
                channel_id=channel,
                thread_ts=thread_ts,
                title=PROMPTS_TITLE,
                prompts=[{"title": title, "message": message} for title, message in prompts],
            )
        except SEND_ERRORS:
            logger.exception("could not set suggested prompts in %s", channel)
