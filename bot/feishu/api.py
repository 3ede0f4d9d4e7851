"""The Open API endpoints the Feishu bot calls, over the Open API client it shares with the wiki
sync (``rag.FeishuOpenApi``: tenant token, rate-limit waits, retries, a send rate per chat):

    bot info       GET  /open-apis/bot/v3/info                         (the bot's own open_id)
    reply          POST /open-apis/im/v1/messages/{message_id}/reply   (in thread, with uuid)
    send           POST /open-apis/im/v1/messages?receive_id_type=chat_id   (with uuid)
    patch          PATCH /open-apis/im/v1/messages/{message_id}        (a card's new content)
    message        GET  /open-apis/im/v1/messages/{message_id}
    members        GET  /open-apis/im/v1/chats/{chat_id}/members       (the reviewers' group)

Someone waits for each of these, so the retries are the answering kind (``rag.answering_retry``:
4 attempts, no wait over 30 s) and logged as warnings; sends are spaced to 5 a second per chat.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp

from bot.feishu.settings import FeishuSettings
from rag import ChatRate, FeishuOpenApi, HttpRetry, answering_retry

TIMEOUT_SECONDS = 15


def feishu_api(
    session: aiohttp.ClientSession,
    config: FeishuSettings,
    retry: HttpRetry | None = None,
    rate: ChatRate | None = None,
) -> FeishuApi:
    return FeishuApi(
        session,
        base_url=config.api_url,
        app_id=config.app_id,
        app_secret=config.secret("app_secret"),
        retry=retry or answering_retry(),
        rate=rate,
        timeout_seconds=TIMEOUT_SECONDS,
        retries_logged_at=logging.WARNING,
    )


@dataclass(frozen=True, slots=True)
class BotInfo:
    open_id: str
    name: str


class FeishuApi(FeishuOpenApi):
    """The shared client with the bot's endpoints; built by :func:`feishu_api`."""

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
