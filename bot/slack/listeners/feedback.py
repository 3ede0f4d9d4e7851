"""A click on the 👍 / 👎 under an answer (:mod:`bot.slack.feedback_buttons`): acknowledged at
once, the vote kept by :class:`bot.feedback.Votes` (one per person per answer: a second click
changes it), and the clicker alone gets a short thanks in the question's language."""

from __future__ import annotations

import json
import logging
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot import texts
from bot.feedback import Verdict, Vote, Votes
from bot.ports import SourceIndex
from bot.slack.errors import SEND_ERRORS
from bot.slack.feedback_buttons import FEEDBACK_ACTION
from rag import detect_language

logger = logging.getLogger(__name__)


def vote_of(body: dict[str, Any], index: SourceIndex) -> Vote | None:
    """The vote a click is, or ``None`` for a payload that is not one of our buttons."""
    try:
        action = body["actions"][0]
        data = json.loads(action["value"])
        container = body["container"]
        answer = f"{container['channel_id']}:{container['message_ts']}"
        verdict: Verdict = "up" if data["v"] == "up" else "down"
        return Vote(
            answer=answer,
            user=str(body["user"]["id"]),
            verdict=verdict,
            question=str(data.get("q", "")),
            sources=tuple(str(source) for source in data.get("s", ())),
            index_version=index.version,
            served_from=str(data.get("f", "")),
        )
    except (KeyError, IndexError, TypeError, ValueError):
        return None


def register(app: AsyncApp, *, votes: Votes, index: SourceIndex) -> None:
    @app.action(FEEDBACK_ACTION)
    async def on_feedback(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        vote = vote_of(body, index)
        if vote is None:
            logger.warning("feedback click without a readable vote ignored")
            return
        await votes.cast(vote)
        channel, _ = vote.answer.split(":", 1)
        thanks = texts.FEEDBACK_THANKS[vote.verdict][detect_language(vote.question)]
        try:
            await client.chat_postEphemeral(
                channel=channel,
                user=vote.user,
                text=thanks,
                thread_ts=body.get("container", {}).get("thread_ts"),
            )
        except SEND_ERRORS:
            logger.exception("could not thank %s for their vote in %s", vote.user, channel)
