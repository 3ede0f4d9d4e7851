"""Private notes to the reviewer who clicked: "only reviewers", "already decided by …".

Ephemeral messages, seen by one person; failing to deliver one is logged, never raised (the
click itself was acknowledged and nothing else depends on the note).
"""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.review.records import Decision
from bot.review.texts import Texts
from bot.slack.limits import slack_date

logger = logging.getLogger(__name__)


def already(texts: Texts, decision: Decision) -> str:
    return texts.already_decided.format(
        reviewer=f"<@{decision.reviewer}>",
        date=slack_date(decision.at),
        outcome=texts.outcomes[decision.verdict],
    )


async def tell(
    client: AsyncWebClient, channel: str, user: str, text: str, thread_ts: str | None = None
) -> None:
    """An ephemeral note to one person; failing to deliver it is logged, never raised."""
    try:
        await client.chat_postEphemeral(channel=channel, user=user, text=text, thread_ts=thread_ts)
    except SlackApiError:
        logger.warning("ephemeral to %s in %s not delivered", user, channel, exc_info=True)
