"""The Feishu / Lark Open API: one client for the bot (bot/feishu/) and the wiki sync.

    tenant token   POST /open-apis/auth/v3/tenant_access_token/internal

Every call carries the app's tenant access token. It is fetched on first use, once however
many calls need it at once, and again before it expires (Feishu hands out a new one only in
its last 30 minutes, so that is when we ask); an "invalid token" answer (99991661/3/4/5,
99991671) drops it and the call is made once more with a fresh one. Feishu's errors come as a
``code`` other than 0, in a 200 answer as often as in an error status; HTTP 429 or code
99991400 (some older endpoints answer 400 with it) is a rate limit, retried after the
``x-ogw-ratelimit-reset`` seconds the gateway names (:mod:`rag.http.retry`). Credentials the
token endpoint refuses raise :class:`CredentialsRefused`: every call would fail the same way.

:class:`ChatRate` keeps at most 5 sends a second per chat: Feishu shares that budget between all
bots in a group and answers more with 429s, so spacing them here is cheaper than retrying.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import aiohttp

from rag.http.json_api import JsonApi, seconds
from rag.http.retry import HttpError, HttpRetry, Sleep

logger = logging.getLogger(__name__)

TOKEN_PATH = "/open-apis/auth/v3/tenant_access_token/internal"
TOKEN_CALL = f"POST {TOKEN_PATH}"
INVALID_TOKEN_CODES = frozenset({99991661, 99991663, 99991664, 99991665, 99991671})
"""Missing, expired or revoked access token: worth one retry with a fresh token."""
RATE_LIMITED = 99991400
RENEW_BEFORE_SECONDS = 1800.0
"""Feishu returns a new tenant token only when the current one has under 30 minutes left."""
CHAT_QPS = 5


class CredentialsRefused(HttpError):
    """The token endpoint refused the app id and secret (e.g. 10014 "app secret invalid")."""


def feishu_check(what: str, status: int, body: Any, headers: Mapping[str, str]) -> HttpError | None:
    """Feishu's errors come as ``code`` != 0, in a 200 as often as in an error status; a rate
    limit is reported as HTTP 429 whatever status it came with."""
    code = int(body.get("code") or 0) if isinstance(body, dict) else (0 if status < 400 else -1)
    if status < 400 and code == 0:
        return None
    message = str(body.get("msg") or "") if isinstance(body, dict) else ""
    limited = status == 429 or code == RATE_LIMITED
    return HttpError(
        what,
        status=429 if limited else (status if status >= 400 else 400),
        message=message,
        code=code,
        wait=seconds(headers.get("x-ogw-ratelimit-reset")) if limited else None,
    )


class TenantToken:
    """The tenant access token, fetched once per expiry however many calls need it at once."""

    def __init__(
        self,
        fetch: Callable[[], Awaitable[tuple[str, float]]],
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


class ChatRate:
    """At most ``per_second`` calls a second for each key (a chat, or a message being edited)."""

    def __init__(
        self,
        per_second: int = CHAT_QPS,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        max_keys: int = 10_000,
    ) -> None:
        if per_second < 1:
            msg = f"per_second ({per_second}) must be at least 1"
            raise ValueError(msg)
        self.per_second = per_second
        self.clock = clock
        self.sleep = sleep
        self.max_keys = max_keys
        self._sent: dict[str, deque[float]] = {}

    async def acquire(self, key: str) -> None:
        while True:
            now = self.clock()
            sent = self._sent.setdefault(key, deque())
            while sent and sent[0] <= now - 1.0:
                sent.popleft()
            if len(sent) < self.per_second:
                sent.append(now)
                self._forget_idle(now)
                return
            await self.sleep(sent[0] + 1.0 - now)

    def _forget_idle(self, now: float) -> None:
        if len(self._sent) <= self.max_keys:
            return
        for key in [k for k, v in self._sent.items() if not v or v[-1] <= now - 1.0]:
            del self._sent[key]


class FeishuOpenApi:
    """``call(method, path)``: Feishu's decoded answer, with the token, retries and rates."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        *,
        base_url: str,
        app_id: str,
        app_secret: str,
        retry: HttpRetry | None = None,
        rate: ChatRate | None = None,
        clock: Callable[[], float] = time.monotonic,
        timeout_seconds: float = 30.0,
        retries_logged_at: int = logging.INFO,
    ) -> None:
        self.json = JsonApi(
            session,
            base_url,
            retry=retry,
            check=feishu_check,
            timeout_seconds=timeout_seconds,
            retries_logged_at=retries_logged_at,
        )
        self.base_url = self.json.base_url
        self._credentials = {"app_id": app_id, "app_secret": app_secret}
        self.rate = rate or ChatRate()
        self.token = TenantToken(self._fetch_token, clock=clock)

    @property
    def calls(self) -> int:
        """Requests sent, token requests and retries included."""
        return self.json.calls

    async def call(
        self,
        method: str,
        path: str,
        *,
        body: Mapping[str, Any] | None = None,
        params: Mapping[str, str] | None = None,
        rate_key: str = "",
    ) -> dict[str, Any]:
        """One API call; the decoded body when ``code`` is 0. ``rate_key``: the chat (or the
        message) whose send rate the call counts against, if any."""
        pace = (lambda: self.rate.acquire(rate_key)) if rate_key else None
        token = await self.token.get()
        try:
            return await self._request(method, path, body, params, token, pace)
        except HttpError as error:
            if error.code not in INVALID_TOKEN_CODES:
                raise
            logger.warning(
                "feishu %s %s: token refused (%d); fetching a new one", method, path, error.code
            )
            self.token.drop(token)
            return await self._request(method, path, body, params, await self.token.get(), pace)

    async def _request(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None,
        params: Mapping[str, str] | None,
        token: str,
        pace: Callable[[], Awaitable[None]] | None,
    ) -> dict[str, Any]:
        headers = {
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json; charset=utf-8",
        }
        answer = await self.json.request(
            method, path, params=params, body=body, headers=headers, pace=pace
        )
        return dict(answer) if isinstance(answer, dict) else {}

    async def _fetch_token(self) -> tuple[str, float]:
        try:
            data = await self.json.request("POST", TOKEN_PATH, body=self._credentials)
        except HttpError as error:
            if error.transient:
                raise
            raise CredentialsRefused(
                TOKEN_CALL, status=error.status, message=error.message, code=error.code
            ) from error
        token = str(data.get("tenant_access_token") or "") if isinstance(data, dict) else ""
        if not token:
            raise CredentialsRefused(TOKEN_CALL, status=200, message="no tenant_access_token")
        return token, float(data.get("expire") or 0)
