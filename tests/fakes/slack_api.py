"""A fake Slack Web API on 127.0.0.1 for tests: real HTTP, real limits, every call recorded.

The app under test reaches it through ``SLACK_API_URL`` exactly as it reaches slack.com:
``AsyncWebClient(token, base_url=fake.url)``. Where clients notice, it behaves like Slack:
Bearer auth (``xoxb-…`` valid unless in ``refused_tokens``, anything else ``invalid_auth``,
none ``not_authed``), HTTP 200 with ``ok:false`` for
errors, HTTP 429 + ``Retry-After`` when rate limited, Block Kit limits enforced
(:mod:`tests.fakes.slack_blocks`), a message store that ``chat.update`` edits, single-use
``trigger_id`` that expire. Faults are injected per method and count-limited::

    async with FakeSlackApi() as slack:
        slack.rate_limit("chat.postMessage", times=2, retry_after="0")
        slack.fail("chat.update", "msg_too_long")
        ... drive the app ...
        await slack.wait_for_messages(1, channel="C1")
        assert slack.calls_to("chat.postMessage")[0].args["thread_ts"] == "1.0001"
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import web

from tests.fakes import slack_assistant
from tests.fakes.slack_blocks import MAX_POST_TEXT, MAX_UPDATE_TEXT, block_problems, view_problems
from tests.fakes.slack_socket import SocketModeLink

BOT_USER_ID = "UCITEBOT"
BOT_ID = "BCITEBOT"
TEAM_ID = "T0CITEBOT"
BOT_TOKEN = "xoxb-citebot-test"

Args = dict[str, Any]
Reply = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Call:
    """One request as the fake saw it (also rejected ones)."""

    method: str
    args: Args
    token: str | None
    response: Reply
    status: int = 200
    at: float = field(default_factory=time.time)
    """When the fake received it (wall clock, so a benchmark in another process can compare)."""


@dataclass(slots=True)
class Message:
    channel: str
    ts: str
    text: str
    blocks: list[dict[str, Any]]
    thread_ts: str | None = None
    user: str = BOT_USER_ID
    edits: int = 0


@dataclass(frozen=True, slots=True)
class Ephemeral:
    channel: str
    user: str
    text: str
    blocks: list[dict[str, Any]]
    thread_ts: str | None = None


@dataclass(slots=True)
class _Fault:
    times: int
    error: str | None = None
    retry_after: str | None = None
    extra: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeSlackApi:
    trigger_ttl_seconds: float = 3.0
    clock: Callable[[], float] = time.monotonic
    port: int = 0
    """0: any free port (tests); fixed when another process must know it (bench/)."""
    calls: list[Call] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    ephemerals: list[Ephemeral] = field(default_factory=list)
    views: list[Args] = field(default_factory=list)
    reactions: set[tuple[str, str, str]] = field(default_factory=set)
    members: dict[str, list[str]] = field(default_factory=dict)
    users: dict[str, Args] = field(default_factory=dict)
    channels: dict[str, Args] = field(default_factory=dict)
    usergroups: dict[str, list[str]] = field(default_factory=dict)
    statuses: list[Args] = field(default_factory=list)
    """Accepted ``assistant.threads.setStatus`` calls (an empty status clears)."""
    suggested: list[Args] = field(default_factory=list)
    """Accepted ``assistant.threads.setSuggestedPrompts`` calls."""
    refused_tokens: set[str] = field(default_factory=set)
    """Well-formed bot tokens Slack does not know (revoked, another app's): ``invalid_auth``
    for every method, ``auth.test`` included, as Slack answers them."""

    def __post_init__(self) -> None:
        self.socket_mode = SocketModeLink()
        self._faults: dict[str, list[_Fault]] = {}
        self._triggers: dict[str, float] = {}
        self._ts = itertools.count(1)
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._port = 0
        self._methods: dict[str, Callable[[Args], Reply]] = {
            "auth.test": self._auth_test,
            "chat.postMessage": self._post_message,
            "chat.update": self._update,
            "chat.delete": self._delete,
            "chat.postEphemeral": self._post_ephemeral,
            "chat.getPermalink": self._permalink,
            "views.open": self._views_open,
            "views.update": self._views_update,
            "views.publish": self._views_publish,
            "reactions.add": self._reactions_add,
            "reactions.remove": self._reactions_remove,
            "conversations.members": self._members,
            "conversations.replies": self._replies,
            "conversations.info": self._conversation_info,
            "users.info": self._user_info,
            "usergroups.users.list": self._usergroup_members,
            "assistant.threads.setStatus": lambda a: slack_assistant.set_status(a, self.statuses),
            "assistant.threads.setSuggestedPrompts": lambda a: (
                slack_assistant.set_suggested_prompts(a, self.suggested)
            ),
        }

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The ``SLACK_API_URL`` to give the app."""
        if self._runner is None:
            msg = "the fake Slack API is not started; use `async with FakeSlackApi()`"
            raise RuntimeError(msg)
        return f"http://127.0.0.1:{self._port}/api/"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._handle)
        app.router.add_get("/_fake/calls", self._recorded)
        app.router.add_get("/link/", self.socket_mode.handle)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", self.port))
        self._port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()

    async def close(self) -> None:
        await self.socket_mode.close()
        if self._runner is not None:
            await self._runner.cleanup()

    async def __aenter__(self) -> FakeSlackApi:
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

    def rate_limit(self, method: str, *, times: int = 1, retry_after: str = "0") -> None:
        """The next ``times`` calls of ``method`` get HTTP 429 with ``Retry-After``."""
        self._faults.setdefault(method, []).append(_Fault(times, retry_after=retry_after))

    def fail(self, method: str, error: str, *, times: int = 1) -> None:
        """The next ``times`` calls of ``method`` get ``{"ok": false, "error": error}``."""
        self._faults.setdefault(method, []).append(_Fault(times, error=error))

    def refuse_scope(self, method: str, needed: str, *, times: int = 1) -> None:
        """The next ``times`` calls of ``method`` get ``missing_scope`` (as a workspace where
        the app lacks ``needed``)."""
        self._faults.setdefault(method, []).append(
            _Fault(times, error="missing_scope", extra={"needed": needed, "provided": "chat:write"})
        )

    def without_status(self) -> None:
        """A workspace that refuses every thread status (``missing_scope``): replies go through
        the "Looking it up…" placeholder, as they did before statuses."""
        self.refuse_scope("assistant.threads.setStatus", "chat:write", times=1_000_000)

    def new_trigger_id(self) -> str:
        """A trigger id as a click would carry: single use, expires after the TTL."""
        trigger = f"{next(self._ts)}.{TEAM_ID}.trigger"
        self._triggers[trigger] = self.clock()
        return trigger

    def calls_to(self, method: str) -> list[Call]:
        return [call for call in self.calls if call.method == method]

    def in_channel(self, channel: str) -> list[Message]:
        return [message for message in self.messages if message.channel == channel]

    def thread(self, channel: str, thread_ts: str) -> list[Message]:
        return [
            m
            for m in self.messages
            if m.channel == channel and (m.thread_ts == thread_ts or m.ts == thread_ts)
        ]

    async def wait_until(self, predicate: Callable[[], bool], *, within: float = 20.0) -> None:
        """Return once ``predicate()`` holds (checked after every call), else TimeoutError."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), within)

    async def wait_for_messages(
        self, count: int, *, channel: str | None = None, within: float = 20.0
    ) -> list[Message]:
        def enough() -> bool:
            return len(self._select(channel)) >= count

        await self.wait_until(enough, within=within)
        return self._select(channel)

    def _select(self, channel: str | None) -> list[Message]:
        return self.messages if channel is None else self.in_channel(channel)

    # -- HTTP ------------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        args = await _arguments(request)
        auth = request.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ").strip() or None
        status, headers, reply = 200, {}, self._reply(method, args, token)
        if reply.get("error") == "ratelimited":
            status, headers = 429, {"Retry-After": reply.pop("retry_after")}
        async with self._changed:
            self.calls.append(Call(method, args, token, reply, status))
            self._changed.notify_all()
        return web.json_response(reply, status=status, headers=headers)

    async def _recorded(self, request: web.Request) -> web.Response:
        """The calls from ``?since=N`` on, for a benchmark that runs the fake in a process."""
        since = int(request.query.get("since", "0"))
        calls = [
            {
                "method": call.method,
                "status": call.status,
                "ok": bool(call.response.get("ok")),
                "error": call.response.get("error"),
                "args": {k: call.args.get(k) for k in ("channel", "ts", "thread_ts", "text")},
                "ts": call.response.get("ts"),
                "at": call.at,
            }
            for call in self.calls[since:]
        ]
        return web.json_response({"count": len(self.calls), "calls": calls})

    def _reply(self, method: str, args: Args, token: str | None) -> Reply:
        if token is None:
            return {"ok": False, "error": "not_authed"}
        if method == "apps.connections.open":
            if not token.startswith("xapp-"):
                return {"ok": False, "error": "invalid_auth"}
            return {"ok": True, "url": f"ws://127.0.0.1:{self._port}/link/?ticket=1"}
        if not token.startswith("xoxb-") or token in self.refused_tokens:
            return {"ok": False, "error": "invalid_auth"}
        handler = self._methods.get(method)
        if handler is None:
            return {"ok": False, "error": "unknown_method"}
        faults = self._faults.get(method, [])
        if faults:
            fault = faults[0]
            fault.times -= 1
            if fault.times <= 0:
                faults.pop(0)
            if fault.retry_after is not None:
                return {"ok": False, "error": "ratelimited", "retry_after": fault.retry_after}
            return {"ok": False, "error": fault.error, **fault.extra}
        return handler(args)

    # -- methods ---------------------------------------------------------------------------

    def _auth_test(self, args: Args) -> Reply:
        return {
            "ok": True,
            "url": "https://citebot-test.slack.com/",
            "team": "citebot test",
            "team_id": TEAM_ID,
            "user": "citebot",
            "user_id": BOT_USER_ID,
            "bot_id": BOT_ID,
            "is_enterprise_install": False,
        }

    def _message_problem(self, args: Args, max_text: int | None) -> Reply | None:
        text, blocks = args.get("text"), args.get("blocks")
        if not text and not blocks and not args.get("attachments"):
            return {"ok": False, "error": "no_text"}
        if max_text is not None and len(text or "") > max_text:
            return {"ok": False, "error": "msg_too_long"}
        if blocks is not None:
            problems = block_problems(blocks)
            if problems:
                return {"ok": False, "error": "invalid_blocks", "errors": problems}
        return None

    def _channel_problem(self, channel: Any) -> Reply | None:
        if not isinstance(channel, str) or channel[:1] not in {"C", "D", "G"}:
            return {"ok": False, "error": "channel_not_found"}
        return None

    def _post_message(self, args: Args) -> Reply:
        problem = self._channel_problem(args.get("channel")) or self._message_problem(args, None)
        if problem:
            return problem
        ts = f"{1_800_000_000 + next(self._ts)}.000100"
        message = Message(
            channel=args["channel"],
            ts=ts,
            text=str(args.get("text") or "")[:MAX_POST_TEXT],
            blocks=list(args.get("blocks") or []),
            thread_ts=args.get("thread_ts") or None,
        )
        self.messages.append(message)
        return {"ok": True, "channel": message.channel, "ts": ts, "message": _shown(message)}

    def _find(self, channel: Any, ts: Any) -> Message | None:
        for message in self.messages:
            if message.channel == channel and message.ts == ts:
                return message
        return None

    def _update(self, args: Args) -> Reply:
        message = self._find(args.get("channel"), args.get("ts"))
        if message is None:
            return {"ok": False, "error": "message_not_found"}
        problem = self._message_problem(args, MAX_UPDATE_TEXT)
        if problem:
            return problem
        message.text = str(args.get("text") or "")
        message.blocks = list(args.get("blocks") or [])
        message.edits += 1
        return {"ok": True, "channel": message.channel, "ts": message.ts, "text": message.text}

    def _delete(self, args: Args) -> Reply:
        message = self._find(args.get("channel"), args.get("ts"))
        if message is None:
            return {"ok": False, "error": "message_not_found"}
        if message.user != BOT_USER_ID:
            return {"ok": False, "error": "cant_delete_message"}
        self.messages.remove(message)
        return {"ok": True, "channel": message.channel, "ts": message.ts}

    def _post_ephemeral(self, args: Args) -> Reply:
        problem = self._channel_problem(args.get("channel"))
        problem = problem or self._message_problem(args, MAX_UPDATE_TEXT)
        if problem:
            return problem
        if not args.get("user"):
            return {"ok": False, "error": "user_not_in_channel"}
        self.ephemerals.append(
            Ephemeral(
                channel=args["channel"],
                user=args["user"],
                text=str(args.get("text") or ""),
                blocks=list(args.get("blocks") or []),
                thread_ts=args.get("thread_ts") or None,
            )
        )
        return {"ok": True, "message_ts": f"{1_800_000_000 + next(self._ts)}.000200"}

    def _permalink(self, args: Args) -> Reply:
        channel, ts = args.get("channel"), args.get("message_ts")
        if not channel or not ts:
            return {"ok": False, "error": "invalid_arguments"}
        link = f"https://citebot-test.slack.com/archives/{channel}/p{str(ts).replace('.', '')}"
        return {"ok": True, "channel": channel, "permalink": link}

    def _views_open(self, args: Args) -> Reply:
        trigger = args.get("trigger_id")
        issued = self._triggers.pop(str(trigger), None)
        if issued is None:
            used = isinstance(trigger, str) and trigger.endswith(".trigger")
            return {"ok": False, "error": "exchanged_trigger_id" if used else "invalid_trigger_id"}
        if self.clock() - issued > self.trigger_ttl_seconds:
            return {"ok": False, "error": "expired_trigger_id"}
        return self._store_view(args)

    def _store_view(self, args: Args) -> Reply:
        problems = view_problems(args.get("view"))
        if problems:
            return {"ok": False, "error": "invalid_arguments", "errors": problems}
        view = {**args["view"], "id": f"V{next(self._ts):06d}"}
        self.views.append(view)
        return {"ok": True, "view": view}

    def _views_update(self, args: Args) -> Reply:
        if not args.get("view_id") and not args.get("external_id"):
            return {"ok": False, "error": "invalid_arguments"}
        return self._store_view(args)

    def _views_publish(self, args: Args) -> Reply:
        if not args.get("user_id"):
            return {"ok": False, "error": "invalid_arguments"}
        return self._store_view(args)

    def _reactions_add(self, args: Args) -> Reply:
        key = (str(args.get("channel")), str(args.get("timestamp")), str(args.get("name")))
        if ":" in key[2] or not key[2]:
            return {"ok": False, "error": "invalid_name"}
        if key in self.reactions:
            return {"ok": False, "error": "already_reacted"}
        self.reactions.add(key)
        return {"ok": True}

    def _reactions_remove(self, args: Args) -> Reply:
        key = (str(args.get("channel")), str(args.get("timestamp")), str(args.get("name")))
        if key not in self.reactions:
            return {"ok": False, "error": "no_reaction"}
        self.reactions.discard(key)
        return {"ok": True}

    def _members(self, args: Args) -> Reply:
        channel = str(args.get("channel"))
        if channel not in self.members:
            return {"ok": False, "error": "channel_not_found"}
        return {"ok": True, "members": self.members[channel], "response_metadata": {}}

    def _replies(self, args: Args) -> Reply:
        thread = self.thread(str(args.get("channel")), str(args.get("ts")))
        if not thread:
            return {"ok": False, "error": "thread_not_found"}
        return {"ok": True, "messages": [_shown(m) for m in thread], "has_more": False}

    def _conversation_info(self, args: Args) -> Reply:
        channel = str(args.get("channel"))
        info = self.channels.get(channel)
        if info is None:
            return {"ok": False, "error": "channel_not_found"}
        return {"ok": True, "channel": {"id": channel, **info}}

    def _user_info(self, args: Args) -> Reply:
        user = str(args.get("user"))
        info = self.users.get(user)
        if info is None:
            return {"ok": False, "error": "user_not_found"}
        return {"ok": True, "user": {"id": user, **info}}

    def _usergroup_members(self, args: Args) -> Reply:
        group = str(args.get("usergroup"))
        if group not in self.usergroups:
            return {"ok": False, "error": "no_such_subteam"}
        return {"ok": True, "users": self.usergroups[group]}


def _shown(message: Message) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "type": "message",
        "user": message.user,
        "bot_id": BOT_ID,
        "text": message.text,
        "ts": message.ts,
        "blocks": message.blocks,
    }
    if message.thread_ts:
        shown["thread_ts"] = message.thread_ts
    return shown


async def _arguments(request: web.Request) -> Args:
    """Query string, form fields and JSON body merged, as Slack reads them; JSON-encoded
    ``blocks``/``view`` form fields decoded."""
    args: Args = dict(request.query)
    raw = await request.read()
    if raw:
        if request.content_type == "application/json":
            body = json.loads(raw)
            if isinstance(body, dict):
                args.update(body)
        else:
            args.update(parse_qsl(raw.decode("utf-8"), keep_blank_values=True))
    for key in ("blocks", "view", "attachments"):
        if isinstance(args.get(key), str):
            try:
                args[key] = json.loads(args[key])
            except ValueError:
                args[key] = None
    return {key: value for key, value in args.items() if value is not None}
