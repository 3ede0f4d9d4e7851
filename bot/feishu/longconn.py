"""``FEISHU_MODE=ws``: events and card clicks over Feishu's long connection, on the bot's loop.

    POST {FEISHU_API_URL}/callback/ws/endpoint {AppID, AppSecret} -> a wss:// URL + client config
      -> aiohttp WebSocket (no thread, no loop of its own; the official SDK's client takes the
         loop at import and blocks in it, which is why it is not used)
      -> data frames (headers: type event|card, message_id, sum/seq for split payloads):
         the plaintext payload goes to the same dispatcher as HTTP events; every frame is
         answered with its own frame carrying {"code": 200} (a card click: and its answer)
      -> a ping every PingInterval seconds; on a drop, reconnect after ReconnectInterval
         (plus up to ReconnectNonce of jitter), forever
The connection is authenticated when it is opened (App ID and Secret), so frames carry no
signature; nothing outside the connection can inject one.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, urlparse

import aiohttp

from bot.feishu.frames import CONTROL, DATA, Frame, FrameError
from rag import HTTP_ERRORS, HttpError, http_reason

logger = logging.getLogger(__name__)

ENDPOINT_PATH = "/callback/ws/endpoint"
PARTS_TTL_SECONDS = 5.0
"""How long the first parts of a split payload wait for the rest."""

Dispatch = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class LongConnection:
    def __init__(
        self,
        session: aiohttp.ClientSession,
        *,
        base_url: str,
        app_id: str,
        app_secret: str,
        dispatch: Dispatch,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.session = session
        self.base_url = base_url.rstrip("/")
        self._credentials = {"AppID": app_id, "AppSecret": app_secret}
        self.dispatch = dispatch
        self.sleep = sleep
        self.ping_interval = 120.0
        self.reconnect_interval = 120.0
        self.reconnect_nonce = 30.0
        self.service = 0
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._parts: dict[str, tuple[float, list[bytes]]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._runner: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Connect once (raises when Feishu refuses the credentials), then keep connected."""
        await self._connect()
        self._runner = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        running = [task for task in (self._runner, *self._tasks) if task is not None]
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        if self._ws is not None:
            await self._ws.close()

    # -- connection ---------------------------------------------------------------------------

    async def _endpoint(self) -> str:
        async with self.session.post(
            self.base_url + ENDPOINT_PATH, json=self._credentials, headers={"locale": "zh"}
        ) as response:
            data = await response.json(content_type=None)
        code = int((data or {}).get("code", -1))
        if response.status != 200 or code != 0:
            msg = str((data or {}).get("msg", ""))
            raise HttpError(ENDPOINT_PATH, status=response.status, code=code, message=msg)
        self._configure(data["data"].get("ClientConfig") or {})
        return str(data["data"]["URL"])

    async def _connect(self) -> None:
        url = await self._endpoint()
        query = parse_qs(urlparse(url).query)
        self.service = int((query.get("service_id") or ["0"])[0])
        self._ws = await self.session.ws_connect(url, heartbeat=None)
        logger.info("Feishu long connection open (service %d)", self.service)

    async def _run(self) -> None:
        while True:
            pinger = asyncio.get_running_loop().create_task(self._ping())
            try:
                await self._receive()
            except (aiohttp.ClientError, TimeoutError, FrameError) as error:
                logger.warning("Feishu long connection lost: %s", http_reason(error))
            finally:
                pinger.cancel()
            await self._reconnect()

    async def _reconnect(self) -> None:
        await self.sleep(random.random() * self.reconnect_nonce)
        while True:
            try:
                await self._connect()
                return
            except HTTP_ERRORS as error:
                logger.warning("Feishu long connection: reconnect failed (%s)", http_reason(error))
                await self.sleep(self.reconnect_interval)

    async def _ping(self) -> None:
        while True:
            if self._ws is not None and not self._ws.closed:
                ping = Frame(service=self.service, method=CONTROL, headers=[("type", "ping")])
                await self._ws.send_bytes(ping.encode())
            await self.sleep(self.ping_interval)

    def _configure(self, config: dict[str, Any]) -> None:
        """Feishu's client config (seconds); a missing value keeps the current one."""

        def seconds(name: str, current: float) -> float:
            value = config.get(name)
            return max(float(value), 0.0) if isinstance(value, int | float) else current

        self.ping_interval = max(seconds("PingInterval", self.ping_interval), 1.0)
        self.reconnect_interval = seconds("ReconnectInterval", self.reconnect_interval)
        self.reconnect_nonce = seconds("ReconnectNonce", self.reconnect_nonce)

    # -- frames -------------------------------------------------------------------------------

    async def _receive(self) -> None:
        assert self._ws is not None
        async for message in self._ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                frame = Frame.decode(message.data)
                task = asyncio.get_running_loop().create_task(self._handle(frame))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            elif message.type == aiohttp.WSMsgType.ERROR:
                break

    async def _handle(self, frame: Frame) -> None:
        if frame.method == CONTROL:
            if frame.header("type") == "pong" and frame.payload:
                self._configure(json.loads(frame.payload))
            return
        if frame.method != DATA:
            return
        payload = self._whole(frame)
        if payload is None:
            return
        started = time.perf_counter()
        answer: dict[str, Any] = {"code": 200}
        try:
            result = await self.dispatch(json.loads(payload))
            if frame.header("type") == "card":
                answer["data"] = base64.b64encode(json.dumps(result).encode()).decode()
        except Exception:
            # The connection outlives any one frame: Feishu is told this one failed (500) and
            # the next frame is read; unexpected errors of an answer end in bot.answering.
            logger.exception("Feishu long connection: frame %s failed", frame.header("message_id"))
            answer = {"code": 500}
        elapsed = round((time.perf_counter() - started) * 1000)
        frame.headers.append(("biz_rt", str(elapsed)))
        frame.payload = json.dumps(answer).encode()
        if self._ws is not None and not self._ws.closed:
            await self._ws.send_bytes(frame.encode())

    def _whole(self, frame: Frame) -> bytes | None:
        """The payload, once every part of a split one has arrived."""
        total = int(frame.header("sum", "1") or 1)
        if total <= 1:
            return frame.payload
        now = time.monotonic()
        self._parts = {k: v for k, v in self._parts.items() if v[0] > now - PARTS_TTL_SECONDS}
        key = frame.header("message_id")
        _, parts = self._parts.setdefault(key, (now, [b""] * total))
        seq = int(frame.header("seq", "0") or 0)
        if 0 <= seq < len(parts):
            parts[seq] = frame.payload
        if all(parts):
            del self._parts[key]
            return b"".join(parts)
        return None
