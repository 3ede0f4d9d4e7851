"""A fake Feishu Open API on 127.0.0.1 for tests: real HTTP, every call recorded.

The app reaches it through ``FEISHU_API_URL`` exactly as it reaches open.feishu.cn. Where a
client notices, it behaves like Feishu: a tenant token from ``tenant_access_token/internal``
(``expire`` seconds, settable) required as ``Bearer`` on every other call (unknown or revoked
-> code 99991663); HTTP 200 with ``code`` != 0 for errors; rate limits as HTTP 429, code
99991400 and ``x-ogw-ratelimit-reset``; a reply's ``uuid`` makes a repeated reply return the
first message instead of a second one; cards must be JSON 2.0, at most 30 KB, and can be patched
only when they say ``config.update_multi``. Faults are scripted per endpoint and count-limited::

    async with FakeFeishuApi() as feishu:
        feishu.rate_limit("reply", times=1, reset=2)
        feishu.fail("patch", status=502, times=1)
        feishu.revoke_tokens()
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from aiohttp import web

from tests.fakes.feishu_link import FeishuLink

APP_ID = "cli_citebottest00001"
APP_SECRET = "citebot-test-secret"
BOT_OPEN_ID = "ou_citebot"
BOT_NAME = "citebot"
MAX_CARD_BYTES = 30 * 1024
INVALID_TOKEN = 99991663
RATE_LIMITED = 99991400
TOO_LONG = 230025
NOT_FOUND = 230011
NOT_UPDATABLE = 230099
BAD_CARD = 200621

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Call:
    endpoint: str
    method: str
    path: str
    body: Json
    token: str | None
    status: int
    response: Json


@dataclass(slots=True)
class Message:
    message_id: str
    chat_id: str
    msg_type: str
    content: Json
    sender: str = BOT_OPEN_ID
    parent_id: str = ""
    root_id: str = ""
    thread_id: str = ""
    edits: int = 0

    @property
    def text(self) -> str:
        """Everything a person would read on the card (markdown, texts, buttons)."""
        return "\n".join(_texts(self.content))


@dataclass(slots=True)
class _Fault:
    times: int
    status: int
    code: int
    reset: float | None = None


_SHOWN = ("content", "text", "default_value")
"""Fields whose strings a person sees (an input box shows its default value)."""


def _texts(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [str(node[key]) for key in _SHOWN if isinstance(node.get(key), str)]
        for key, value in node.items():
            if key not in _SHOWN or not isinstance(value, str):
                found += _texts(value)
        return found
    if isinstance(node, list):
        return [text for item in node for text in _texts(item)]
    return []


def card_problem(card: Any, raw: str) -> str | None:
    if len(raw.encode()) > MAX_CARD_BYTES:
        return f"card is {len(raw.encode())} bytes, over {MAX_CARD_BYTES}"
    if not isinstance(card, dict) or card.get("schema") != "2.0":
        return "not a card JSON 2.0"
    elements = card.get("body", {}).get("elements")
    if not isinstance(elements, list) or not elements:
        return "card body has no elements"
    return None


@dataclass
class FakeFeishuApi:
    token_expire: int = 7200
    calls: list[Call] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    chat_members: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._faults: dict[str, list[_Fault]] = {}
        self._tokens: set[str] = set()
        self._uuids: dict[str, str] = {}
        self._ids = itertools.count(1)
        self._run = os.urandom(3).hex()
        """In every id, so ids from two runs never meet in a shared Redis."""
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._port = 0
        self.link = FeishuLink(APP_ID, APP_SECRET)
        """The long connection (FEISHU_MODE=ws), served here too."""

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The ``FEISHU_API_URL`` to give the app."""
        if self._runner is None:
            msg = "the fake Feishu API is not started; use `async with FakeFeishuApi()`"
            raise RuntimeError(msg)
        return f"http://127.0.0.1:{self._port}"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/open-apis/{path:.*}", self._handle)
        app.router.add_post("/callback/ws/endpoint", self.link.endpoint)
        app.router.add_get("/ws", self.link.handle)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        self.link.base_url = f"http://127.0.0.1:{self._port}"
        await web.SockSite(self._runner, sock).start()

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def __aenter__(self) -> FakeFeishuApi:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    # -- test controls ---------------------------------------------------------------------

    def rate_limit(self, endpoint: str, *, times: int = 1, reset: float = 0) -> None:
        """The next ``times`` calls of ``endpoint`` get 429 / 99991400 with the reset header."""
        self._faults.setdefault(endpoint, []).append(_Fault(times, 429, RATE_LIMITED, reset))

    def fail(self, endpoint: str, *, status: int = 500, code: int = 0, times: int = 1) -> None:
        """The next ``times`` calls of ``endpoint`` get HTTP ``status`` with ``code``."""
        self._faults.setdefault(endpoint, []).append(_Fault(times, status, code))

    def revoke_tokens(self) -> None:
        """Every tenant token handed out so far is now invalid (as after a secret reset)."""
        self._tokens.clear()

    def user_message(
        self, chat_id: str, sender: str, content: Json, *, msg_type: str = "text", root_id: str = ""
    ) -> Message:
        """A message a person sent (the event driver reports it to the app)."""
        message = Message(self._new_id("om"), chat_id, msg_type, content, sender, root_id=root_id)
        self.messages.append(message)
        return message

    def calls_to(self, endpoint: str) -> list[Call]:
        return [call for call in self.calls if call.endpoint == endpoint]

    def in_chat(self, chat_id: str, *, by_bot: bool = True) -> list[Message]:
        return [
            m for m in self.messages if m.chat_id == chat_id and (m.sender == BOT_OPEN_ID) == by_bot
        ]

    def thread(self, root_id: str) -> list[Message]:
        """The bot's messages in the thread under ``root_id``."""
        return [m for m in self.messages if m.root_id == root_id and m.sender == BOT_OPEN_ID]

    def find(self, message_id: str) -> Message | None:
        return next((m for m in self.messages if m.message_id == message_id), None)

    async def wait_until(self, predicate: Callable[[], bool], *, within: float = 20.0) -> None:
        """Return once ``predicate()`` holds (checked after every call), else TimeoutError."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), within)

    def _new_id(self, kind: str) -> str:
        return f"{kind}_{self._run}{next(self._ids):06d}"

    # -- the API ---------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["path"]
        raw = await request.read()
        body: Json = json.loads(raw) if raw else {}
        endpoint, handler = self._route(request.method, path)
        auth = request.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None
        status, reply, headers = self._answer(endpoint, handler, request, body, token)
        self.calls.append(Call(endpoint, request.method, path, body, token, status, reply))
        async with self._changed:
            self._changed.notify_all()
        return web.json_response(reply, status=status, headers=headers)

    def _answer(
        self,
        endpoint: str,
        handler: Callable[[web.Request, Json], Json] | None,
        request: web.Request,
        body: Json,
        token: str | None,
    ) -> tuple[int, Json, dict[str, str]]:
        if handler is None:
            return 404, {"code": 404, "msg": "404 page not found"}, {}
        faults = self._faults.get(endpoint) or []
        if faults:
            fault = faults[0]
            fault.times -= 1
            if fault.times <= 0:
                faults.pop(0)
            headers = {} if fault.reset is None else {"x-ogw-ratelimit-reset": str(fault.reset)}
            return fault.status, {"code": fault.code, "msg": "scripted fault"}, headers
        if endpoint != "token" and token not in self._tokens:
            return (
                400,
                {"code": INVALID_TOKEN, "msg": "Invalid access token for authorization."},
                {},
            )
        reply = handler(request, body)
        status = 400 if reply.get("code") else 200
        return status, reply, {}

    def _route(
        self, method: str, path: str
    ) -> tuple[str, Callable[[web.Request, Json], Json] | None]:
        parts = path.strip("/").split("/")
        if path == "/auth/v3/tenant_access_token/internal" and method == "POST":
            return "token", self._token
        if path == "/bot/v3/info" and method == "GET":
            return "bot_info", lambda _r, _b: {"code": 0, "msg": "ok", "bot": self._bot()}
        if parts[:3] == ["im", "v1", "messages"]:
            if len(parts) == 3 and method == "POST":
                return "send", self._send
            if len(parts) == 5 and parts[4] == "reply" and method == "POST":
                return "reply", lambda _r, b: self._reply(parts[3], b)
            if len(parts) == 4 and method == "PATCH":
                return "patch", lambda _r, b: self._patch(parts[3], b)
            if len(parts) == 4 and method == "GET":
                return "message", lambda _r, _b: self._get(parts[3])
        if parts[:3] == ["im", "v1", "chats"] and len(parts) == 5 and parts[4] == "members":
            return "members", lambda _r, _b: self._members(parts[3])
        return "unknown", None

    def _token(self, _request: web.Request, body: Json) -> Json:
        if body.get("app_id") != APP_ID or body.get("app_secret") != APP_SECRET:
            return {"code": 10014, "msg": "app secret invalid"}
        token = self._new_id("t")
        self._tokens.add(token)
        return {"code": 0, "msg": "ok", "tenant_access_token": token, "expire": self.token_expire}

    def _bot(self) -> Json:
        return {"open_id": BOT_OPEN_ID, "app_name": BOT_NAME, "activate_status": 2}

    def _new(self, chat_id: str, body: Json, *, parent_id: str = "", root_id: str = "") -> Json:
        uuid = str(body.get("uuid") or "")
        if uuid and uuid in self._uuids:
            return {"code": 0, "msg": "ok", "data": {"message_id": self._uuids[uuid]}}
        raw = str(body.get("content", ""))
        card = json.loads(raw) if raw else None
        problem = card_problem(card, raw) if body.get("msg_type") == "interactive" else None
        if problem is not None:
            code = TOO_LONG if "bytes" in problem else BAD_CARD
            return {"code": code, "msg": problem}
        message = Message(
            self._new_id("om"),
            chat_id,
            str(body.get("msg_type")),
            card or {},
            parent_id=parent_id,
            root_id=root_id,
        )
        self.messages.append(message)
        if uuid:
            self._uuids[uuid] = message.message_id
        return {"code": 0, "msg": "ok", "data": {"message_id": message.message_id}}

    def _send(self, request: web.Request, body: Json) -> Json:
        if request.query.get("receive_id_type") != "chat_id":
            return {"code": 99992402, "msg": "field validation failed: receive_id_type"}
        return self._new(str(body.get("receive_id")), body)

    def _reply(self, message_id: str, body: Json) -> Json:
        parent = self.find(message_id)
        if parent is None:
            return {"code": NOT_FOUND, "msg": f"message {message_id} not found"}
        root = parent.root_id or parent.message_id
        return self._new(parent.chat_id, body, parent_id=message_id, root_id=root)

    def _patch(self, message_id: str, body: Json) -> Json:
        message = self.find(message_id)
        if message is None or message.sender != BOT_OPEN_ID:
            return {"code": NOT_FOUND, "msg": f"message {message_id} not found"}
        if not message.content.get("config", {}).get("update_multi"):
            return {"code": NOT_UPDATABLE, "msg": "card is not update_multi"}
        raw = str(body.get("content", ""))
        card = json.loads(raw)
        problem = card_problem(card, raw)
        if problem is not None:
            return {"code": TOO_LONG if "bytes" in problem else BAD_CARD, "msg": problem}
        message.content = card
        message.edits += 1
        return {"code": 0, "msg": "ok"}

    def _get(self, message_id: str) -> Json:
        message = self.find(message_id)
        if message is None:
            return {"code": NOT_FOUND, "msg": f"message {message_id} not found"}
        item = {
            "message_id": message.message_id,
            "chat_id": message.chat_id,
            "msg_type": message.msg_type,
            "root_id": message.root_id,
            "parent_id": message.parent_id,
            "sender": {"id": message.sender},
            "body": {"content": json.dumps(message.content, ensure_ascii=False)},
        }
        return {"code": 0, "msg": "ok", "data": {"items": [item]}}

    def _members(self, chat_id: str) -> Json:
        members = self.chat_members.get(chat_id)
        if members is None:
            return {"code": 232011, "msg": "the bot is not in the chat"}
        items = [{"member_id": member, "member_id_type": "open_id"} for member in members]
        return {"code": 0, "msg": "ok", "data": {"items": items, "has_more": False}}
