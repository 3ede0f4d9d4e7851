"""Listener for citation button clicks: the cited passage, shown only to the clicker.

Acknowledged first (Slack's 3 s), then an ephemeral message in the same thread; if Slack
refuses that (e.g. the bot can't post ephemerals in that conversation) the same content opens
as a modal, while the click's ``trigger_id`` is still fresh. An unexpected error is logged and
the clicker told in one sentence (:func:`bot.slack.errors.after_ack`).

The place is checked again at the click (SCOPES_FILE): a button can be clicked by someone else
than the asker, or its message forwarded, so the passage is shown only when the audience of
the place clicked in (the channel's, or the clicker's own in a DM) may see its document.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.audience import Audiences
from bot.ports import SourceIndex
from bot.slack.errors import after_ack
from bot.slack.reply import SOURCE_ACTION_PREFIX, SlackMessage
from bot.slack.source_ref import decode
from bot.slack.source_view import (
    as_modal,
    find,
    not_here_message,
    source_message,
    unreadable_message,
)
from rag import Language, detect_language

logger = logging.getLogger(__name__)

SOURCE_ACTION = re.compile(rf"^{SOURCE_ACTION_PREFIX}(\d+)$")


def _language(body: dict[str, Any]) -> Language:
    message = body.get("message") or {}
    return detect_language(str(message.get("text") or ""))


def register(app: AsyncApp, *, index: SourceIndex, audiences: Audiences | None = None) -> None:
    places = audiences or Audiences(None)

    @app.action(SOURCE_ACTION)
    @after_ack
    async def on_source_click(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        await ack()
        await _show(client, body, action, index, places)


async def _message(
    body: dict[str, Any], action: dict[str, Any], index: SourceIndex, audiences: Audiences
) -> SlackMessage:
    language = _language(body)
    match = SOURCE_ACTION.match(str(action.get("action_id", "")))
    ref = decode(str(action.get("value", "")))
    if ref is None or match is None:
        return unreadable_message(language)
    channel, user, _ = _where(body)
    # Slack DM conversation ids start with D; there only the clicker reads the passage.
    seen_by = await audiences.place(channel=channel, user=user, is_dm=channel.startswith("D"))
    if seen_by is None or not seen_by.allows(ref.source):
        return not_here_message(language)
    chunk = index.chunk(ref.chunk_id)
    return source_message(int(match.group(1)), ref, find(ref, chunk, index.chunks), language)


async def _show(
    client: AsyncWebClient,
    body: dict[str, Any],
    action: dict[str, Any],
    index: SourceIndex,
    audiences: Audiences,
) -> None:
    message = await _message(body, action, index, audiences)
    language = _language(body)
    channel, user, thread_ts = _where(body)
    try:
        await client.chat_postEphemeral(
            channel=channel,
            user=user,
            text=message.text,
            blocks=message.blocks,
            thread_ts=thread_ts or None,
        )
    except SlackApiError as error:
        logger.warning(
            "ephemeral source for %s in %s failed (%s); opening a modal",
            user,
            channel,
            error.response.get("error"),
        )
        await client.views_open(trigger_id=body["trigger_id"], view=as_modal(message, language))


def _where(body: dict[str, Any]) -> tuple[str, str, str | None]:
    """(channel, clicker, thread) of a click on a message."""
    container = body.get("container") or {}
    message = body.get("message") or {}
    channel = str(container.get("channel_id") or (body.get("channel") or {}).get("id"))
    return (
        channel,
        str((body.get("user") or {}).get("id")),
        (container.get("thread_ts") or message.get("thread_ts")),
    )
