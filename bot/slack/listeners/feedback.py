"""Clicks on the 👍 / 👎 under an answer (:mod:`bot.slack.feedback_buttons`) and the optional
"what was wrong" form.

    feedback_buttons click -> ack -> Feedback.cast (one vote per person per answer; the second
                              person's 👎 withdraws the answer and posts its card)
                           -> the clicker alone gets a short thanks; after a 👎 it carries a
                              "Tell us what was wrong" button
    that button            -> views.open: a modal with one optional text field
    the modal submitted    -> ack (closes it) -> Feedback.note (kept with the 👎, shown on the
                              card if the answer is withdrawn)
"""

from __future__ import annotations

import json
import logging
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.feedback import Feedback, Vote, Where
from bot.ports import SourceIndex
from bot.slack.errors import SEND_ERRORS
from bot.slack.feedback_buttons import (
    FEEDBACK_ACTION,
    NOTE_BLOCK,
    NOTE_INPUT,
    NOTE_VIEW,
    TELL_ACTION,
    note_modal,
    thanks_blocks,
    vote_from,
)
from rag import Language, detect_language

logger = logging.getLogger(__name__)

Body = dict[str, Any]


def vote_of(body: Body, index: SourceIndex) -> tuple[Vote, Where] | None:
    """The vote a click is and where its answer is, or ``None`` for a payload not ours."""
    try:
        container = body["container"]
        message = body.get("message") or {}
        channel, ts = str(container["channel_id"]), str(container["message_ts"])
        vote = vote_from(
            str(body["actions"][0]["value"]),
            answer=f"{channel}:{ts}",
            user=str(body["user"]["id"]),
            index_version=index.version,
        )
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    thread = container.get("thread_ts") or message.get("thread_ts") or ts
    return vote, Where(channel, str(thread), ts, str(message.get("text") or ""))


def _language(value: object) -> Language:
    return "en" if value == "en" else "zh"


def register(app: AsyncApp, *, feedback: Feedback, index: SourceIndex) -> None:
    @app.action(FEEDBACK_ACTION)
    async def on_feedback(ack: AsyncAck, body: Body, client: AsyncWebClient) -> None:
        await ack()
        parsed = vote_of(body, index)
        if parsed is None:
            logger.warning("feedback click without a readable vote ignored")
            return
        vote, where = parsed
        await feedback.cast(vote, where)
        text, blocks = thanks_blocks(vote, detect_language(vote.question))
        try:
            await client.chat_postEphemeral(
                channel=where.channel,
                user=vote.user,
                text=text,
                blocks=blocks,
                thread_ts=body.get("container", {}).get("thread_ts"),
            )
        except SEND_ERRORS:
            logger.exception("could not thank %s for their vote in %s", vote.user, where.channel)

    @app.action(TELL_ACTION)
    async def on_tell(ack: AsyncAck, body: Body, client: AsyncWebClient) -> None:
        await ack()
        try:
            data = json.loads(body["actions"][0]["value"])
            view = note_modal(str(data["a"]), _language(data.get("l")))
            await client.views_open(trigger_id=str(body["trigger_id"]), view=view)
        except (KeyError, IndexError, TypeError, ValueError):
            logger.warning("'what was wrong' click without a readable answer ignored")
        except SEND_ERRORS:
            logger.exception("the 'what was wrong' form did not open")

    @app.view(NOTE_VIEW)
    async def on_note(ack: AsyncAck, body: Body, view: Body) -> None:
        await ack()  # closes the form: nothing in it can be wrong (the text is optional)
        try:
            answer = str(json.loads(view["private_metadata"])["a"])
            field = view["state"]["values"][NOTE_BLOCK][NOTE_INPUT]
            note, user = str(field.get("value") or ""), str(body["user"]["id"])
        except (KeyError, TypeError, ValueError):
            logger.warning("'what was wrong' form without a readable answer ignored")
            return
        if note.strip() and not await feedback.note(answer, user, note):
            logger.info("note from %s on %s kept nowhere: no 👎 of theirs there", user, answer)
