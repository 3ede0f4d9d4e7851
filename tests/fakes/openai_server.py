"""A fake OpenAI-compatible chat server on 127.0.0.1 for tests: scripted replies, faults on demand.

It behaves like the real endpoint where clients notice: ``POST /v1/chat/completions`` (and
``/chat/completions``), Bearer auth with OpenAI's 401 body, body validation with OpenAI-style
400s, OpenAI-shaped completions. Every request is recorded, including rejected ones, so tests
count calls and read exactly what the model was sent.

    async with FakeOpenAIServer() as server:
        server.script(HttpError(429, retry_after="2"), "退费按剩余课时计算[1]。")
        model = ChatOpenAI(base_url=server.base_url, api_key=server.api_key, ...)

Each call takes the next scripted step; when the script is empty, ``responder`` (a function
of the request) decides; with neither, the call fails with a 400 that says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import socket
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from aiohttp import web

DEFAULT_API_KEY = "sk-test-citebot"


@dataclass(frozen=True, slots=True)
class Reply:
    content: str
    finish_reason: str = "stop"


@dataclass(frozen=True, slots=True)
class HttpError:
    """An error response in OpenAI's shape; ``retry_after`` is sent verbatim as the header."""

    status: int
    retry_after: str | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True)
class Delay:
    """Wait before answering (longer than the client timeout = a timeout), then do ``then``."""

    seconds: float
    then: Step = field(default_factory=lambda: Reply("too late"))


@dataclass(frozen=True, slots=True)
class MalformedJson:
    """A 200 whose body is not JSON."""


@dataclass(frozen=True, slots=True)
class DropConnection:
    """Close the connection without sending a response."""


Step = Reply | HttpError | Delay | MalformedJson | DropConnection | str
"""What the server does for one call; a plain ``str`` is ``Reply(str)``."""


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    path: str
    authorization: str | None
    body: dict[str, Any]

    @property
    def model(self) -> str | None:
        value = self.body.get("model")
        return value if isinstance(value, str) else None

    @property
    def messages(self) -> list[dict[str, Any]]:
        value = self.body.get("messages")
        return value if isinstance(value, list) else []

    @property
    def params(self) -> dict[str, Any]:
        """Everything but model and messages: temperature, max_tokens, stream …"""
        return {k: v for k, v in self.body.items() if k not in {"model", "messages"}}

    def content_of(self, role: str) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.messages if m.get("role") == role)


Responder = Callable[[RecordedRequest], Step]

_ERROR_TEXTS = {
    401: (
        "Incorrect API key provided. You can find your API key in your account settings.",
        "invalid_request_error",
        "invalid_api_key",
    ),
    429: (
        "Rate limit reached for requests. Please try again later.",
        "requests",
        "rate_limit_exceeded",
    ),
    500: (
        "The server had an error while processing your request. Sorry about that!",
        "server_error",
        None,
    ),
    502: ("Bad gateway.", "server_error", None),
    503: ("The engine is currently overloaded, please try again later.", "server_error", None),
}


def error_body(status: int, message: str | None = None) -> dict[str, Any]:
    default, kind, code = _ERROR_TEXTS.get(
        status, ("Invalid request.", "invalid_request_error", None)
    )
    return {"error": {"message": message or default, "type": kind, "param": None, "code": code}}


def unused_base_url() -> str:
    """A base URL on a port nobody listens on: connection refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _invalid_body(body: Any) -> str | None:
    if not isinstance(body, dict):
        return "We could not parse the JSON body of your request."
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty array"
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            return f"Invalid value for 'messages[{i}]': each message needs a role"
    return None


class FakeOpenAIServer:
    def __init__(self, *, api_key: str = DEFAULT_API_KEY, responder: Responder | None = None):
        self.api_key = api_key
        self.responder = responder
        self.requests: list[RecordedRequest] = []
        self._script: deque[Step] = deque()
        self._ids = itertools.count(1)
        self._closing = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._port = 0

    @property
    def base_url(self) -> str:
        if self._runner is None:
            msg = "the fake OpenAI server is not started; use `async with FakeOpenAIServer()`"
            raise RuntimeError(msg)
        return f"http://127.0.0.1:{self._port}/v1"

    def script(self, *steps: Step) -> None:
        """Queue what the next calls do, in order."""
        self._script.extend(steps)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_post("/chat/completions", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()

    async def close(self) -> None:
        self._closing.set()  # cut any Delay short so shutdown is immediate
        if self._runner is not None:
            await self._runner.cleanup()

    async def __aenter__(self) -> FakeOpenAIServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = None
        recorded = RecordedRequest(
            path=request.path,
            authorization=request.headers.get("Authorization"),
            body=body if isinstance(body, dict) else {},
        )
        self.requests.append(recorded)
        if recorded.authorization != f"Bearer {self.api_key}":
            return web.json_response(error_body(401), status=401)
        problem = _invalid_body(body)
        if problem is not None:
            return web.json_response(error_body(400, problem), status=400)
        return await self._perform(self._next_step(recorded), recorded, request)

    def _next_step(self, recorded: RecordedRequest) -> Step:
        if self._script:
            return self._script.popleft()
        if self.responder is not None:
            return self.responder(recorded)
        return HttpError(400, message="fake OpenAI server: no scripted reply left; call .script()")

    async def _perform(
        self, step: Step, recorded: RecordedRequest, request: web.Request
    ) -> web.StreamResponse:
        if isinstance(step, str):
            step = Reply(step)
        if isinstance(step, Delay):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), timeout=step.seconds)
            return await self._perform(step.then, recorded, request)
        if isinstance(step, HttpError):
            headers = {} if step.retry_after is None else {"Retry-After": step.retry_after}
            return web.json_response(
                error_body(step.status, step.message), status=step.status, headers=headers
            )
        if isinstance(step, MalformedJson):
            return web.Response(
                text='{"id": "chatcmpl-broken", "choices": [', content_type="application/json"
            )
        if isinstance(step, DropConnection):
            if request.transport is not None:
                request.transport.close()
            return web.Response()
        return web.json_response(self._completion(step, recorded))

    def _completion(self, reply: Reply, recorded: RecordedRequest) -> dict[str, Any]:
        # A token here is a character. Like the real endpoint, a reply longer than the
        # request's bound is cut there and says so.
        prompt_tokens = sum(len(str(m.get("content", ""))) for m in recorded.messages)
        bound = recorded.params.get("max_completion_tokens", recorded.params.get("max_tokens"))
        if isinstance(bound, int) and len(reply.content) > bound:
            reply = Reply(reply.content[:bound], "length")
        completion_tokens = len(reply.content)
        return {
            "id": f"chatcmpl-fake{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": recorded.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.content},
                    "finish_reason": reply.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
