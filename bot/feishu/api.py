"""The Open API client: the endpoints citebot needs, over one aiohttp session.

    tenant token   POST /open-apis/auth/v3/tenant_access_token/internal
    bot info       GET  /open-apis/bot/v3/info                         (the bot's own open_id)
    reply          POST /open-apis/im/v1/messages/{message_id}/reply   (in thread, with uuid)
    send           POST /open-apis/im/v1/messages?receive_id_type=chat_id   (with uuid)
    patch          PATCH /open-apis/im/v1/messages/{message_id}        (a card's new content)
    message        GET  /open-apis/im/v1/messages/{message_id}
    members        GET  /open-apis/im/v1/chats/{chat_id}/members       (the reviewers' group)

Every call carries the tenant access token. It is fetched on first use and again before it
expires (Feishu hands out a new one only in its last 30 minutes, so that is when we ask); an
"invalid token" answer drops it and the call is made once more with a fresh one. Transient
failures are retried (:mod:`bot.feishu.retry`); sends are spaced to 5 a second per chat.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from bot.feishu.retry import ApiRetry, ChatRate, FeishuApiError, describe, is_transient

logger = logging.getLogger(__name__)

TOKEN_PATH = "/open-apis/auth/v3/tenant_access_token/internal"
INVALID_TOKEN_CODES = frozenset({99991661, 99991663, 99991664, 99991665, 99991671})
"""Missing, expired or revoked access token: worth one retry with a fresh token."""
RENEW_BEFORE_SECONDS = 1800
"""Feishu returns a new tenant token only when the current one has under 30 minutes left."""
TIMEOUT_SECONDS = 15


@dataclass(frozen=True, slots=True)
class BotInfo:
    open_id: str
    name: str


class TenantToken:
    """The tenant access token, fetched once per expiry however many calls need it at once."""

    def __init__(
        self,
        fetch: Callable[[], Any],
        *,
        clock: Callable[[], float] = time.monotonic,
        renew_before: float = RENEW_BEFORE_SECONDS,
    ) -> None:
        self._fetch = fetch
        self.clock = clock
        self.renew_before = renew_before
        self._token = ""
        self._renew_at = 0.0
        self._lock = asyncio.Lock()

    async def get(self) -> str:
        if self._token and self.clock() < self._renew_at:
            return self._token
        async with self._lock:
            if not self._token or self.clock() >= self._renew_at:
                token, expire = await self._fetch()
                self._token = token
                # At most half its life when it is short (tests, or a token nearly expired).
                self._renew_at = self.clock() + max(expire - self.renew_before, expire / 2)
        return self._token

    def drop(self, token: str) -> None:
        """Forget ``token`` (Feishu called it invalid), unless another call already replaced it."""
        if self._token == token:
            self._token = ""


class FeishuApi:
    def __init__(
        self,
        session: aiohttp.ClientSession,
        *,
        base_url: str,
        app_id: str,
        app_secret: str,
        retry: ApiRetry | None = None,
        rate: ChatRate | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.session = session
        self.base_url = base_url.rstrip("/")
        self._credentials = {"app_id": app_id, "app_secret": app_secret}
        self.retry = retry or ApiRetry()
        self.rate = rate or ChatRate()
        self.token = TenantToken(self._fetch_token, clock=clock)

    # -- the endpoints ----------------------------------------------------------------------

    async def bot_info(self) -> BotInfo:
        data = await self.call("GET", "/open-apis/bot/v3/info")
        bot = data.get("bot") or {}
        return BotInfo(open_id=str(bot.get("open_id", "")), name=str(bot.get("app_name", "")))

    async def reply(self, message_id: str, card: Mapping[str, Any], *, uuid: str, chat: str) -> str:
        """Reply to ``message_id`` in its thread with ``card``; the new message's id."""
        body = {
            "msg_type": "interactive",
            "content": json.dumps(card, ensure_ascii=False),
            "reply_in_thread": True,
            "uuid": uuid,
        }
        path = f"/open-apis/im/v1/messages/{message_id}/reply"
        data = await self.call("POST", path, body=body, rate_key=f"chat:{chat}")
        return str(data.get("data", {}).get("message_id", ""))

    async def send(self, chat_id: str, card: Mapping[str, Any], *, uuid: str) -> str:
        body = {
            "receive_id": chat_id,
            "msg_type": "interactive",
            "content": json.dumps(card, ensure_ascii=False),
            "uuid": uuid,
        }
        data = await self.call(
            "POST",
            "/open-apis/im/v1/messages",
            params={"receive_id_type": "chat_id"},
            body=body,
            rate_key=f"chat:{chat_id}",
        )
        return str(data.get("data", {}).get("message_id", ""))

    async def patch(self, message_id: str, card: Mapping[str, Any]) -> None:
        """Replace a card's content (the card must have ``config.update_multi``)."""
        body = {"content": json.dumps(card, ensure_ascii=False)}
        path = f"/open-apis/im/v1/messages/{message_id}"
        await self.call("PATCH", path, body=body, rate_key=f"message:{message_id}")

    async def message(self, message_id: str) -> dict[str, Any]:
        data = await self.call("GET", f"/open-apis/im/v1/messages/{message_id}")
        items = data.get("data", {}).get("items") or [{}]
        return dict(items[0])

    async def members(self, chat_id: str) -> frozenset[str]:
        """open_ids of the people in ``chat_id`` (all pages)."""
        found: set[str] = set()
        page = ""
        while True:
            params = {"member_id_type": "open_id", "page_size": "100"}
            if page:
                params["page_token"] = page
            data = await self.call(
                "GET", f"/open-apis/im/v1/chats/{chat_id}/members", params=params
            )
            body = data.get("data", {})
            found.update(str(item["member_id"]) for item in body.get("items") or [])
            page = str(body.get("page_token") or "")
            if not body.get("has_more") or not page:
                return frozenset(found)

    # -- the machinery ----------------------------------------------------------------------

    async def call(
        self,
        method: str,
        path: str,
        *,
        body: Mapping[str, Any] | None = None,
        params: Mapping[str, str] | None = None,
        rate_key: str = "",
    ) -> dict[str, Any]:
        """One API call with the token, retries and rate; the decoded body when ``code`` is 0."""
        what = f"{method} {path}"
        retrying = AsyncRetrying(
            retry=retry_if_exception(is_transient),
            stop=stop_after_attempt(self.retry.max_attempts),
            wait=self.retry.wait(),
            sleep=self.retry.sleep,
            before_sleep=lambda state: logger.warning(
                "feishu %s: %s; retry %d after %.1f s",
                what,
                _reason(state),
                state.attempt_number,
                state.upcoming_sleep,
            ),
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                if rate_key:
                    await self.rate.acquire(rate_key)
                return await self._with_token(method, path, body, params)
        msg = "unreachable: tenacity reraises the last error"
        raise AssertionError(msg)  # pragma: no cover

    async def _with_token(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None,
        params: Mapping[str, str] | None,
    ) -> dict[str, Any]:
        token = await self.token.get()
        try:
            return await self._request(method, path, body, params, token)
        except FeishuApiError as error:
            if error.code not in INVALID_TOKEN_CODES:
                raise
            logger.warning(
                "feishu %s %s: token refused (%d); fetching a new one", method, path, error.code
            )
            self.token.drop(token)
            return await self._request(method, path, body, params, await self.token.get())

    async def _request(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None,
        params: Mapping[str, str] | None,
        token: str | None,
    ) -> dict[str, Any]:
        headers = {"Content-Type": "application/json; charset=utf-8"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        async with self.session.request(
            method,
            self.base_url + path,
            json=body,
            params=params,
            headers=headers,
            timeout=aiohttp.ClientTimeout(total=TIMEOUT_SECONDS),
        ) as response:
            try:
                data = await response.json(content_type=None)
            except (ValueError, aiohttp.ContentTypeError):
                data = None
            if not isinstance(data, dict):
                data = {"code": 0 if response.status < 400 else -1, "msg": response.reason or ""}
            code = int(data.get("code") or 0)
            if response.status >= 400 or code != 0:
                msg = f"{method} {path}"
                raise FeishuApiError(
                    msg,
                    status=response.status,
                    code=code,
                    msg=str(data.get("msg", "")),
                    reset=_seconds(response.headers.get("x-ogw-ratelimit-reset")),
                )
            return data

    async def _fetch_token(self) -> tuple[str, float]:
        data = await self._request("POST", TOKEN_PATH, self._credentials, None, None)
        token = str(data.get("tenant_access_token") or "")
        if not token:
            raise FeishuApiError(TOKEN_PATH, status=200, code=-1, msg="no tenant_access_token")
        return token, float(data.get("expire") or 0)


def _reason(state: RetryCallState) -> str:
    error = state.outcome.exception() if state.outcome is not None else None
    return describe(error) if error is not None else "?"


def _seconds(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None
