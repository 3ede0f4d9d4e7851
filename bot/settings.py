"""Settings of the Slack edge, read once from the environment by ``python -m bot``.

Which mode runs follows from what is set: no ``SLACK_BOT_TOKEN`` -> the local console chat;
a token and ``SLACK_APP_TOKEN`` -> Socket Mode; a token alone -> HTTP mode on ``PORT`` (needs
``SLACK_SIGNING_SECRET``). ``FOLLOW_UPS=on|off`` (default on): whether a thread message without
a mention, where the bot answered, is a follow-up it answers. Read by pydantic-settings like
the core's (rag's ``EdgeSettings``): tokens are ``SecretStr``, and every error says what is
wrong and what to set.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlparse

from pydantic import BeforeValidator, Field, SecretStr
from pydantic_settings import NoDecode

from rag import EdgeSettings, Settings, SettingsError, flag

DEFAULT_API_URL = "https://slack.com/api/"
DEFAULT_PORT = 3000

Mode = Literal["console", "http", "socket"]

_CHANNEL_ID = re.compile(r"^[CG][A-Z0-9]{2,}$")
_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,}$")


def _port(raw: Any) -> int:
    text = str(raw)
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        msg = f"PORT={text!r} is not a TCP port; set a number from 1 to 65535 (default 3000)"
        raise SettingsError(msg)
    return int(text)


def _digest(raw: Any) -> str:
    text = str(raw).strip().lower()
    if text not in {"weekly", "off"}:
        msg = f"DIGEST={raw!r} is not known; use weekly (default) or off"
        raise SettingsError(msg)
    return text


def _api_url(raw: Any) -> str:
    text = str(raw)
    parsed = urlparse(text)
    if parsed.scheme not in {"http", "https"} or not parsed.netloc:
        msg = f"SLACK_API_URL={text!r} is not an http(s) URL; unset it for {DEFAULT_API_URL}"
        raise SettingsError(msg)
    return text if text.endswith("/") else text + "/"


def _metrics_dir(raw: Any) -> Path | None:
    if raw is None:
        return None
    path = Path(str(raw))
    if not path.is_dir() or not os.access(path, os.W_OK):
        msg = (
            f"PROMETHEUS_MULTIPROC_DIR={str(raw)!r} is not a writable folder; create it (empty) "
            "for the metrics of several bot processes on one host, or unset it for one"
        )
        raise SettingsError(msg)
    return path


def id_list(raw: Any, *, valid: re.Pattern[str], complaint: str, hint: str) -> tuple[str, ...]:
    """Comma-separated ids, deduplicated in order; one line naming every invalid one
    (``{complaint}: a, b; {hint}``). Shared by REVIEWERS and FEISHU_REVIEWERS."""
    parts = raw.split(",") if isinstance(raw, str) else list(raw)
    ids = tuple(dict.fromkeys(part.strip() for part in parts if part.strip()))
    bad = [value for value in ids if not valid.match(value)]
    if bad:
        msg = f"{complaint}: {', '.join(bad)}; {hint}"
        raise SettingsError(msg)
    return ids


def _reviewers(raw: Any) -> tuple[str, ...]:
    return id_list(
        raw,
        valid=_USER_ID,
        complaint="REVIEWERS has values that are not Slack user IDs",
        hint="use comma-separated IDs like U012ABCDEF (profile → ⋮ → Copy member ID)",
    )


class BotSettings(EdgeSettings):
    rag: Settings = Field(default_factory=Settings)
    bot_token: SecretStr | None = Field(None, validation_alias="SLACK_BOT_TOKEN")
    signing_secret: SecretStr | None = Field(None, validation_alias="SLACK_SIGNING_SECRET")
    app_token: SecretStr | None = Field(None, validation_alias="SLACK_APP_TOKEN")
    api_url: Annotated[str, BeforeValidator(_api_url)] = Field(
        DEFAULT_API_URL, validation_alias="SLACK_API_URL"
    )
    port: Annotated[int, BeforeValidator(_port)] = DEFAULT_PORT
    review_channel: str | None = None
    reviewers: Annotated[tuple[str, ...], NoDecode, BeforeValidator(_reviewers)] = ()
    follow_ups: Annotated[bool, flag("FOLLOW_UPS")] = True
    digest: Annotated[Literal["weekly", "off"], BeforeValidator(_digest)] = "weekly"
    """DIGEST: the weekly digest in REVIEW_CHANNEL (bot/digest.py)."""
    metrics_dir: Annotated[Path | None, BeforeValidator(_metrics_dir)] = Field(
        None, validation_alias="PROMETHEUS_MULTIPROC_DIR"
    )
    """Where the processes of one host keep their metrics for ``/metrics`` to sum
    (bot/metrics/exposition.py); ``None``: this process's own."""
    slack_client_id: SecretStr | None = Field(None, exclude=True, repr=False)
    slack_client_secret: SecretStr | None = Field(None, exclude=True, repr=False)
    """Read only to refuse them: they would switch Bolt to multi-workspace OAuth."""

    @property
    def mode(self) -> Mode:
        if self.bot_token is None:
            return "console"
        return "socket" if self.app_token else "http"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> BotSettings:
        """The settings ``env`` describes; raises SettingsError on a bad or missing value."""
        settings = cls.read(env, rag=Settings.from_env(env))
        settings.check_complete()
        return settings

    def check_complete(self) -> None:
        """The mode's requirements (run by :meth:`from_env`; tests build partial settings)."""
        if self.bot_token is None:
            return
        if not self.bot_token.get_secret_value().startswith("xoxb-"):
            msg = "SLACK_BOT_TOKEN must be the bot token (xoxb-…) from OAuth & Permissions"
            raise SettingsError(msg)
        if self.app_token is not None and not self.app_token.get_secret_value().startswith("xapp-"):
            msg = "SLACK_APP_TOKEN must be an app-level token (xapp-…) with connections:write"
            raise SettingsError(msg)
        if self.mode == "http" and self.signing_secret is None:
            msg = (
                "SLACK_SIGNING_SECRET is required in HTTP mode (Basic Information → App "
                "Credentials → Signing Secret); or set SLACK_APP_TOKEN to use Socket Mode"
            )
            raise SettingsError(msg)
        self._check_review_channel()
        if self.slack_client_id is not None and self.slack_client_secret is not None:
            msg = (
                "SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set, which would switch Bolt to "
                "multi-workspace OAuth; citebot is installed per workspace: unset them"
            )
            raise SettingsError(msg)

    def _check_review_channel(self) -> None:
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
