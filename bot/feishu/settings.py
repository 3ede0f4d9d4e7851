"""FEISHU_* settings, read once by ``python -m bot``: unset FEISHU_APP_ID -> Feishu is off.

Read by pydantic-settings like the others (rag's ``EdgeSettings``): secrets are ``SecretStr``,
a blank value means unset, and every error is one line saying what is wrong and where in the
developer console (开发者后台) the value is. ``FEISHU_MODE=http`` needs a public URL and both
the Encrypt Key and the Verification Token; ``ws`` (long connection) needs neither.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal
from urllib.parse import urlparse

from pydantic import BeforeValidator, Field, SecretStr
from pydantic_settings import NoDecode

from bot.settings import id_list
from rag import EdgeSettings, SettingsError

DEFAULT_API_URL = "https://open.feishu.cn"

_APP_ID = re.compile(r"^cli_[0-9a-z]{8,}$")
APP_ID_FORM = "cli_ and at least 8 lower-case letters or digits, such as cli_a1b2c3d4e5f60718"
"""What :data:`_APP_ID` accepts, in the words of its error (a console's App IDs have 16)."""
_CHAT_ID = re.compile(r"^oc_[0-9a-zA-Z]{8,}$")
_OPEN_ID = re.compile(r"^ou_[0-9a-zA-Z]{8,}$")


def _app_id(raw: Any) -> str:
    text = str(raw)
    if not _APP_ID.match(text):
        msg = f"FEISHU_APP_ID={text!r} is not an App ID: {APP_ID_FORM} (凭证与基础信息)"
        raise SettingsError(msg)
    return text


def _api_url(raw: Any) -> str:
    text = str(raw)
    parsed = urlparse(text)
    if parsed.scheme not in {"http", "https"} or not parsed.netloc:
        msg = (
            f"FEISHU_API_URL={text!r} is not an http(s) URL; unset it for {DEFAULT_API_URL} "
            "(Lark: https://open.larksuite.com)"
        )
        raise SettingsError(msg)
    return text.rstrip("/")


def _mode(raw: Any) -> str:
    text = str(raw).lower()
    if text not in {"http", "ws"}:
        msg = (
            f"FEISHU_MODE={text!r} is not a mode; use http (events pushed) or ws (long connection)"
        )
        raise SettingsError(msg)
    return text


def _review_chat(raw: Any) -> str | None:
    if raw is None:
        return None  # the default (BaseSettings validates defaults too)
    text = str(raw)
    if not _CHAT_ID.match(text):
        msg = (
            f"FEISHU_REVIEW_CHAT={text!r} is not a chat_id; use the group's id "
            "(oc_…, 群设置 → 群信息, or the chat list API), not its name"
        )
        raise SettingsError(msg)
    return text


def _reviewers(raw: Any) -> tuple[str, ...]:
    return id_list(
        raw,
        valid=_OPEN_ID,
        complaint="FEISHU_REVIEWERS has values that are not open_ids",
        hint="use comma-separated ids like ou_7d8a6e6df7621556ce0d21922b676706",
    )


_WHERE = {
    "app_secret": ("FEISHU_APP_SECRET", "凭证与基础信息 → App Secret"),
    "encrypt_key": ("FEISHU_ENCRYPT_KEY", "事件与回调 → 加密策略 → Encrypt Key"),
    "verification_token": (
        "FEISHU_VERIFICATION_TOKEN",
        "事件与回调 → 加密策略 → Verification Token",
    ),
}


class FeishuSettings(EdgeSettings):
    app_id: Annotated[str, BeforeValidator(_app_id)] = Field(validation_alias="FEISHU_APP_ID")
    app_secret: SecretStr | None = Field(None, validation_alias="FEISHU_APP_SECRET")
    encrypt_key: SecretStr | None = Field(None, validation_alias="FEISHU_ENCRYPT_KEY")
    verification_token: SecretStr | None = Field(None, validation_alias="FEISHU_VERIFICATION_TOKEN")
    api_url: Annotated[str, BeforeValidator(_api_url)] = Field(
        DEFAULT_API_URL, validation_alias="FEISHU_API_URL"
    )
    mode: Annotated[Literal["http", "ws"], BeforeValidator(_mode)] = Field(
        "http", validation_alias="FEISHU_MODE"
    )
    review_chat: Annotated[str | None, BeforeValidator(_review_chat)] = Field(
        None, validation_alias="FEISHU_REVIEW_CHAT"
    )
    reviewers: Annotated[tuple[str, ...], NoDecode, BeforeValidator(_reviewers)] = Field(
        (), validation_alias="FEISHU_REVIEWERS"
    )

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> FeishuSettings | None:
        """The settings ``env`` describes, ``None`` when FEISHU_APP_ID is unset."""
        if not env.get("FEISHU_APP_ID", "").strip():
            return None
        settings = cls.read(env)
        settings.check_complete()
        return settings

    def check_complete(self) -> None:
        for field, (name, where) in _WHERE.items():
            if self.mode == "ws" and field != "app_secret":
                continue  # the long connection is authenticated by the App Secret alone
            if getattr(self, field) is None:
                msg = f"{name} is required in {self.mode} mode (开发者后台 → {where})"
                raise SettingsError(msg)

    def secret(self, field: Literal["app_secret", "encrypt_key", "verification_token"]) -> str:
        value = getattr(self, field)
        if not isinstance(value, SecretStr):
            msg = f"{_WHERE[field][0]} is not set"
            raise SettingsError(msg)
        return value.get_secret_value()
