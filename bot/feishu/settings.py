"""FEISHU_* settings, read once by ``python -m bot``: unset FEISHU_APP_ID -> Feishu is off.

Every error says what is wrong and where in the developer console (开发者后台) to find the value.
``FEISHU_MODE=ws`` (long connection) is refused at start with one line: the official SDK's
WebSocket client blocks the event loop it grabs at import, and a lighter client is not built
yet; use HTTP mode (a public URL for 事件与回调).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlparse

from bot.feishu.app import DEFAULT_API_URL, FeishuConfig
from rag import SettingsError

_APP_ID = re.compile(r"^cli_[0-9a-z]{8,}$")
_CHAT_ID = re.compile(r"^oc_[0-9a-zA-Z]{8,}$")
_OPEN_ID = re.compile(r"^ou_[0-9a-zA-Z]{8,}$")


def _text(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def _required(env: Mapping[str, str], name: str, where: str) -> str:
    value = _text(env, name)
    if value is None:
        msg = f"{name} is required with FEISHU_APP_ID (开发者后台 → {where})"
        raise SettingsError(msg)
    return value


def _api_url(env: Mapping[str, str]) -> str:
    raw = _text(env, "FEISHU_API_URL") or DEFAULT_API_URL
    parsed = urlparse(raw)
    if parsed.scheme not in {"http", "https"} or not parsed.netloc:
        msg = (
            f"FEISHU_API_URL={raw!r} is not an http(s) URL; unset it for {DEFAULT_API_URL} "
            "(Lark: https://open.larksuite.com)"
        )
        raise SettingsError(msg)
    return raw.rstrip("/")


def _reviewers(env: Mapping[str, str]) -> tuple[str, ...]:
    raw = _text(env, "FEISHU_REVIEWERS") or ""
    ids = tuple(dict.fromkeys(part.strip() for part in raw.split(",") if part.strip()))
    bad = [value for value in ids if not _OPEN_ID.match(value)]
    if bad:
        msg = (
            f"FEISHU_REVIEWERS has values that are not open_ids: {', '.join(bad)}; "
            "use comma-separated ids like ou_7d8a6e6df7621556ce0d21922b676706"
        )
        raise SettingsError(msg)
    return ids


def feishu_config(env: Mapping[str, str]) -> FeishuConfig | None:
    """The Feishu settings ``env`` describes, ``None`` when FEISHU_APP_ID is unset."""
    app_id = _text(env, "FEISHU_APP_ID")
    if app_id is None:
        return None
    if not _APP_ID.match(app_id):
        msg = f"FEISHU_APP_ID={app_id!r} is not an App ID (cli_…; 凭证与基础信息)"
        raise SettingsError(msg)
    mode = (_text(env, "FEISHU_MODE") or "http").lower()
    if mode == "ws":
        msg = (
            "FEISHU_MODE=ws (long connection) is not supported yet: it needs a WebSocket client "
            "that does not block the event loop; use FEISHU_MODE=http with a public URL"
        )
        raise SettingsError(msg)
    if mode != "http":
        msg = f"FEISHU_MODE={mode!r} is not a mode; use http"
        raise SettingsError(msg)
    review_chat = _text(env, "FEISHU_REVIEW_CHAT")
    if review_chat is not None and not _CHAT_ID.match(review_chat):
        msg = (
            f"FEISHU_REVIEW_CHAT={review_chat!r} is not a chat_id; use the group's id "
            "(oc_…, 群设置 → 群信息, or the chat list API), not its name"
        )
        raise SettingsError(msg)
    return FeishuConfig(
        app_id=app_id,
        app_secret=_required(env, "FEISHU_APP_SECRET", "凭证与基础信息 → App Secret"),
        encrypt_key=_required(env, "FEISHU_ENCRYPT_KEY", "事件与回调 → 加密策略 → Encrypt Key"),
        verification_token=_required(
            env, "FEISHU_VERIFICATION_TOKEN", "事件与回调 → 加密策略 → Verification Token"
        ),
        api_url=_api_url(env),
        review_chat=review_chat,
        reviewers=_reviewers(env),
    )
