"""Listener for citation button clicks: the cited passage, shown only to the clicker.

Acknowledged first (Slack's 3 s), then an ephemeral message in the same thread; if Slack
refuses that (e.g. the bot can't post ephemerals in that conversation) the same content opens
as a modal, while the click's ``trigger_id`` is still fresh.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.ports import SourceIndex
from bot.reply import SOURCE_ACTION_PREFIX
from bot.source_ref import decode
from bot.source_view import as_modal, find, source_message, unreadable_message
from rag.language import Language, detect_language

logger = logging.getLogger(__name__)

SOURCE_ACTION = re.compile(rf"^{SOURCE_ACTION_PREFIX}(\d+)$")


def _language(body: dict[str, Any]) -> Language:
    message = body.get("message") or {}
    return detect_language(str(message.get("text") or ""))


def register(app: AsyncApp, *, index: SourceIndex) -> None:
    @app.action(SOURCE_ACTION)
    async def on_source_click(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        await ack()
        language = _language(body)
        match = SOURCE_ACTION.match(str(action.get("action_id", "")))
        ref = decode(str(action.get("value", "")))
        if ref is None or match is None:
            message = unreadable_message(language)
        else:
            chunk = index.chunk(ref.chunk_id)
            message = source_message(
                int(match.group(1)), ref, find(ref, chunk, index.chunks), language
            )
        container = body.get("container") or {}
        channel = str(container.get("channel_id") or (body.get("channel") or {}).get("id"))
        user = str((body.get("user") or {}).get("id"))
        thread_ts = container.get("thread_ts") or (body.get("message") or {}).get("thread_ts")
        try:
            await client.chat_postEphemeral(
                channel=channel,
                user=user,
                text=message.text,
                blocks=message.blocks,
                **({"thread_ts": thread_ts} if thread_ts else {}),
            )
        except SlackApiError as error:
            logger.warning(
                "ephemeral source for %s in %s failed (%s); opening a modal",
                user,
                channel,
                error.response.get("error"),
            )
            await client.views_open(trigger_id=body["trigger_id"], view=as_modal(message, language))
