"""Who the bot is in Slack, asked once at start (``auth.test``): a refused token stops start-up.

A well-formed but wrong SLACK_BOT_TOKEN (revoked, from another app, a typo after ``xoxb-``)
passed the settings' checks, the bot started and ``/healthz`` said ok, while every reply
failed. ``auth.test`` answers ``invalid_auth`` (or ``not_authed``, ``token_revoked``, …) for
such a token: start-up stops with one line saying so. When Slack cannot be reached at start,
the bot starts anyway (Bolt checks the token again on the first event) and says so in a
warning; ``/healthz`` then shows the identity as unknown.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.errors import SEND_ERRORS
from rag import SettingsError

logger = logging.getLogger(__name__)

REFUSED = frozenset(
    {"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"}
)
"""``auth.test`` errors that mean the token itself will never work (docs.slack.dev)."""


class TokenRefused(SettingsError):
    """Slack refused SLACK_BOT_TOKEN; the message is the one line start-up prints."""


@dataclass(frozen=True, slots=True)
class SlackIdentity:
    team: str
    team_id: str
    bot_user: str
    bot_user_id: str
    bot_id: str

    @classmethod
    def of(cls, reply: dict[str, Any]) -> SlackIdentity:
        return cls(
            team=str(reply.get("team") or ""),
            team_id=str(reply.get("team_id") or ""),
            bot_user=str(reply.get("user") or ""),
            bot_user_id=str(reply.get("user_id") or ""),
            bot_id=str(reply.get("bot_id") or ""),
        )

    def describe(self) -> dict[str, str]:
        """For ``/healthz``: names and ids, nothing secret."""
        return {
            "team": self.team,
            "team_id": self.team_id,
            "bot_user": self.bot_user,
            "bot_user_id": self.bot_user_id,
            "bot_id": self.bot_id,
        }


async def check_token(client: AsyncWebClient) -> SlackIdentity | None:
    """The bot's identity; ``None`` when Slack did not answer. Raises :class:`TokenRefused`."""
    try:
        reply = await client.auth_test()
    except SlackApiError as error:
        code = str(error.response.get("error") or "")
        if code in REFUSED:
            msg = (
                f"SLACK_BOT_TOKEN was refused by Slack ({code}); set the app's Bot User OAuth "
                "Token (xoxb-…, OAuth & Permissions) of the workspace it is installed in"
            )
            raise TokenRefused(msg) from None
        logger.warning("Slack auth.test failed (%s); the token is checked on the first event", code)
        return None
    except SEND_ERRORS as error:
        logger.warning(
            "Slack auth.test did not answer (%s); the token is checked on the first event",
            type(error).__name__,
        )
        return None
    return SlackIdentity.of(dict(reply.data) if isinstance(reply.data, dict) else {})
