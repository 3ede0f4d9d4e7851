"""A recording proxy between the bot and the local model server, for the model-path benchmark.

The product's batch command writes what an asker would see; the benchmark also needs what the
model itself wrote (its markers, language, preambles, a refusal in its own words), which call
it was (answer, follow-up rewrite, judge), how long each took and what token bound the product
sent. The proxy forwards ``POST /v1/chat/completions`` unchanged and keeps one :class:`Call` per
request. It changes a request in one case only, and records that it did: a request with no
token bound at all gets ``max_tokens`` = ``cap`` (without it, a small model that never stops
holds the benchmark for the whole context window).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from bench.local_model import free_port


@dataclass(frozen=True, slots=True)
class Call:
    system: str
    user: str
    """The user message holding the data — the last with a ``<question>`` block, so after the
    worked example's turn — else the first: the sources and the question."""
    reply: str
    finish_reason: str
    seconds: float
    prompt_tokens: int
    completion_tokens: int
    sent_max_tokens: int | None
    """``max_tokens`` as the product sent it (llama-cpp-python reads only this one)."""
    sent_max_completion_tokens: int | None
    capped_by_bench: bool
    again: str = ""
    """The product's last message when it asked once more in the same conversation (wrong
    language, no citation), after the model's first reply; "" for a first request."""

    @property
    def kind(self) -> str:
        """``answer``, ``rewrite`` or ``judge``, by the fixed first words of each system prompt."""
        if self.system.startswith("You turn the last message"):
            return "rewrite"
        if self.system.startswith("You check answers"):
            return "judge"
        return "answer"


@dataclass
class RecordingProxy:
    upstream: str
    """The model server's base URL, ``http://127.0.0.1:PORT/v1``."""
    cap: int = 1500
    calls: list[Call] = field(default_factory=list)
    base_url: str = ""
    _loop: asyncio.AbstractEventLoop | None = None
    _runner: web.AppRunner | None = None

    def start(self) -> None:
        ready = threading.Event()
        port = free_port()
        self.base_url = f"http://127.0.0.1:{port}/v1"

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            app = web.Application(client_max_size=64 << 20)
            app.router.add_post("/v1/chat/completions", self._forward)
            self._runner = web.AppRunner(app)
            loop.run_until_complete(self._runner.setup())
            loop.run_until_complete(web.TCPSite(self._runner, "127.0.0.1", port).start())
            ready.set()
            loop.run_forever()

        threading.Thread(target=run, daemon=True).start()
        ready.wait(30)

    def stop(self) -> None:
        loop, runner = self._loop, self._runner
        if loop is None or runner is None:
            return
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)

    async def _forward(self, request: web.Request) -> web.Response:
        body: dict[str, Any] = await request.json()
        sent_max, sent_completion = body.get("max_tokens"), body.get("max_completion_tokens")
        capped = sent_max is None and sent_completion is None
        if capped:
            body["max_tokens"] = self.cap
        started = time.perf_counter()
        timeout = aiohttp.ClientTimeout(total=3600)
        async with (
            aiohttp.ClientSession(timeout=timeout) as session,
            session.post(f"{self.upstream}/chat/completions", json=body) as upstream,
        ):
            payload = await upstream.read()
            status = upstream.status
        seconds = time.perf_counter() - started
        if status == 200:
            self.calls.append(
                _call(body, json.loads(payload), seconds, sent_max, sent_completion, capped)
            )
        return web.Response(body=payload, status=status, content_type="application/json")


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):  # OpenAI content parts
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def _call(
    body: dict[str, Any],
    reply: dict[str, Any],
    seconds: float,
    sent_max: int | None,
    sent_completion: int | None,
    capped: bool,
) -> Call:
    messages = body.get("messages", [])
    system = next((_text(m) for m in messages if m.get("role") == "system"), "")
    users = [_text(m) for m in messages if m.get("role") == "user"]
    data = max((i for i, text in enumerate(users) if "<question>" in text), default=0)
    choice = (reply.get("choices") or [{}])[0]
    usage = reply.get("usage") or {}
    return Call(
        system=system,
        user=users[data] if users else "",
        again=users[-1] if len(users) > data + 1 else "",
        reply=_text(choice.get("message") or {}),
        finish_reason=str(choice.get("finish_reason") or ""),
        seconds=seconds,
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        sent_max_tokens=sent_max,
        sent_max_completion_tokens=sent_completion,
        capped_by_bench=capped,
    )
