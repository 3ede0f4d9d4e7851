"""Settings of the Slack edge, read once from the environment by ``python -m bot``.

Which mode runs follows from what is set: no ``SLACK_BOT_TOKEN`` -> the local console chat;
a token and ``SLACK_APP_TOKEN`` -> Socket Mode; a token alone -> HTTP mode on ``PORT`` (needs
``SLACK_SIGNING_SECRET``). Every error says what is wrong and what to set.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlparse

from rag import Settings, SettingsError

DEFAULT_API_URL = "https://slack.com/api/"
DEFAULT_PORT = 3000

Mode = Literal["console", "http", "socket"]

_CHANNEL_ID = re.compile(r"^[CG][A-Z0-9]{2,}$")
_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,}$")


def _text(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def _port(env: Mapping[str, str]) -> int:
    raw = _text(env, "PORT")
    if raw is None:
        return DEFAULT_PORT
    if not raw.isdigit() or not 1 <= int(raw) <= 65535:
        msg = f"PORT={raw!r} is not a TCP port; set a number from 1 to 65535 (default 3000)"
        raise SettingsError(msg)
    return int(raw)


def _api_url(env: Mapping[str, str]) -> str:
    raw = _text(env, "SLACK_API_URL") or DEFAULT_API_URL
    parsed = urlparse(raw)
    if parsed.scheme not in {"http", "https"} or not parsed.netloc:
        msg = f"SLACK_API_URL={raw!r} is not an http(s) URL; unset it for {DEFAULT_API_URL}"
        raise SettingsError(msg)
    return raw if raw.endswith("/") else raw + "/"


def _reviewers(env: Mapping[str, str]) -> tuple[str, ...]:
    raw = _text(env, "REVIEWERS")
    if raw is None:
        return ()
    ids = tuple(dict.fromkeys(part.strip() for part in raw.split(",") if part.strip()))
    bad = [value for value in ids if not _USER_ID.match(value)]
    if bad:
        msg = (
            f"REVIEWERS has values that are not Slack user IDs: {', '.join(bad)}; "
            "use comma-separated IDs like U012ABCDEF (profile → ⋮ → Copy member ID)"
        )
        raise SettingsError(msg)
    return ids


@dataclass(frozen=True, slots=True)
class BotSettings:
    rag: Settings
    bot_token: str | None = None
    signing_secret: str | None = None
    app_token: str | None = None
    api_url: str = DEFAULT_API_URL
    port: int = DEFAULT_PORT
    review_channel: str | None = None
    reviewers: tuple[str, ...] = ()

    @property
    def mode(self) -> Mode:
        if self.bot_token is None:
            return "console"
        return "socket" if self.app_token else "http"

    def __repr__(self) -> str:
        # Never print the secrets, e.g. in a traceback or a debug log.
        return (
            f"BotSettings(mode={self.mode!r}, api_url={self.api_url!r}, port={self.port}, "
            f"review_channel={self.review_channel!r}, reviewers={self.reviewers!r})"
        )

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> BotSettings:
        settings = cls(
            rag=Settings.from_env(env),
            bot_token=_text(env, "SLACK_BOT_TOKEN"),
            signing_secret=_text(env, "SLACK_SIGNING_SECRET"),
            app_token=_text(env, "SLACK_APP_TOKEN"),
            api_url=_api_url(env),
            port=_port(env),
            review_channel=_text(env, "REVIEW_CHANNEL"),
            reviewers=_reviewers(env),
        )
        settings._check(env)
        return settings

    def _check(self, env: Mapping[str, str]) -> None:
        if self.bot_token is None:
            return
        if not self.bot_token.startswith("xoxb-"):
            msg = "SLACK_BOT_TOKEN must be the bot token (xoxb-…) from OAuth & Permissions"
            raise SettingsError(msg)
        if self.app_token is not None and not self.app_token.startswith("xapp-"):
            msg = "SLACK_APP_TOKEN must be an app-level token (xapp-…) with connections:write"
            raise SettingsError(msg)
        if self.mode == "http" and self.signing_secret is None:
            msg = (
                "SLACK_SIGNING_SECRET is required in HTTP mode (Basic Information → App "
                "Credentials → Signing Secret); or set SLACK_APP_TOKEN to use Socket Mode"
            )
            raise SettingsError(msg)
        if self.review_channel is None:
            msg = (
                "REVIEW_CHANNEL is required: the ID (C…) of the channel where reviewers get "
                "answers that failed the citation check; invite the bot there"
            )
            raise SettingsError(msg)
        if not _CHANNEL_ID.match(self.review_channel):
            msg = (
                f"REVIEW_CHANNEL={self.review_channel!r} is not a channel ID; use the ID "
                "like C012ABCDEF (channel details → bottom), not the #name"
            )
            raise SettingsError(msg)
        if _text(env, "SLACK_CLIENT_ID") and _text(env, "SLACK_CLIENT_SECRET"):
            msg = (
                "SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set, which would switch Bolt to "
                "multi-workspace OAuth; citebot is installed per workspace: unset them"
            )
            raise SettingsError(msg)
