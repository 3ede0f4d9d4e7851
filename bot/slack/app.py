"""The Bolt app: listeners registered, one error handler, nothing else.

``build_app`` receives everything already built (client, answer pipeline, dedupe, the review
desk's hooks) from the composition root (``bot/__main__.py``) or a test, and registers the thin
listeners. ``register_extra`` lets other parts (the review desk's actions, App Home) add their
listeners to the same app.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.dedupe import Dedupe
from bot.ports import Answerer, ReviewHooks
from bot.slack.answering import Responder
from bot.slack.listeners import questions, sources
from bot.slack.reply import plain_message
from rag import detect_language, model_failure_text

logger = logging.getLogger(__name__)


def _where(body: dict[str, Any]) -> tuple[str | None, str | None, str]:
    """(channel, user, text) of the request that failed, for the one-sentence apology."""
    event = body.get("event") or {}
    if event:
        return event.get("channel"), event.get("user"), str(event.get("text") or "")
    channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get(
        "channel_id"
    )
    message = body.get("message") or {}
    return channel, (body.get("user") or {}).get("id"), str(message.get("text") or "")


def build_app(
    *,
    client: AsyncWebClient,
    signing_secret: str | None,
    answerer: Answerer,
    dedupe: Dedupe,
    review: ReviewHooks | None = None,
    register_extra: Callable[[AsyncApp], None] | None = None,
    log_questions: bool = False,
) -> AsyncApp:
    """``signing_secret=None`` only for Socket Mode, where Slack does not sign requests."""
    app = AsyncApp(
        client=client,
        signing_secret=signing_secret or "",
        request_verification_enabled=signing_secret is not None,
        process_before_response=False,
        name="citebot",
    )
    responder = Responder(answerer, review=review, log_questions=log_questions)
    questions.register(app, responder=responder, dedupe=dedupe)
    sources.register(app, index=answerer.index)
    if register_extra is not None:
        register_extra(app)

    @app.error
    async def on_error(error: Exception, body: dict[str, Any], client: AsyncWebClient) -> None:
        logger.error("unhandled error in a %s request", body.get("type", "unknown"), exc_info=error)
        channel, user, text = _where(body)
        if not channel or not user:
            return
        apology = plain_message(model_failure_text(detect_language(text)))
        try:
            await client.chat_postEphemeral(
                channel=channel, user=user, text=apology.text, blocks=apology.blocks
            )
        except Exception:
            logger.exception("could not apologise to %s in %s", user, channel)

    return app
