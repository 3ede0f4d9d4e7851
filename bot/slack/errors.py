"""The one place an unexpected error in a Slack request becomes the one human sentence.

Questions have their own (:mod:`bot.answering`: the sentence replaces the placeholder). For
everything else — clicks, modal submissions, App Home — :func:`apologise` logs the traceback
(``logger.exception``-style, never shown) and tells the person who acted, privately, in one
short sentence in the language of the message they acted on. It serves the app's
``@app.error`` handler and :func:`after_ack`, which wraps listeners that acknowledge first:
bolt waits for the ack by polling, and an exception right after ``ack()`` can make it answer
Slack 404 instead of 200, so those listeners must not let an error escape to ``@app.error``.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec

import aiohttp
from slack_sdk.errors import SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.reply import plain_message
from rag import detect_language, model_failure_text

logger = logging.getLogger(__name__)

P = ParamSpec("P")

SEND_ERRORS = (SlackClientError, aiohttp.ClientError, OSError, TimeoutError)
"""What a failed Web API call raises (the Slack side said no, or could not be reached)."""


def where(body: dict[str, Any]) -> tuple[str | None, str | None, str]:
    """(channel, user, text) of the request that failed, for the one-sentence apology."""
    event = body.get("event") or {}
    if event:
        return event.get("channel"), event.get("user"), str(event.get("text") or "")
    channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get(
        "channel_id"
    )
    message = body.get("message") or {}
    return channel, (body.get("user") or {}).get("id"), str(message.get("text") or "")


async def apologise(client: AsyncWebClient, body: dict[str, Any], error: BaseException) -> None:
    """Log ``error`` with its traceback; tell whoever acted, privately. Never raises."""
    logger.error("unhandled error in a %s request", body.get("type", "unknown"), exc_info=error)
    channel, user, text = where(body)
    if not channel or not user:
        return
    apology = plain_message(model_failure_text(detect_language(text)))
    try:
        await client.chat_postEphemeral(
            channel=channel, user=user, text=apology.text, blocks=apology.blocks
        )
    except SEND_ERRORS:
        logger.exception("could not apologise to %s in %s", user, channel)


def after_ack(
    listener: Callable[P, Awaitable[None]],
) -> Callable[P, Awaitable[None]]:
    """``listener`` (which takes ``body`` and ``client``) with unexpected errors apologised for."""

    @functools.wraps(listener)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            await listener(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - the one catch-all for clicks, by design
            await apologise(kwargs["client"], kwargs["body"], error)  # type: ignore[arg-type]

    return guarded
