"""Feishu's side of the long connection (``FEISHU_MODE=ws``), served by the fake Open API.

``POST /callback/ws/endpoint`` checks the app's credentials and hands out a ``ws://`` URL on the
same fake; the WebSocket there receives the bot's frames (pings, answers) and :meth:`push` sends
it events and card clicks as data frames, split into parts when asked, and returns the bot's
answer frame. Frames use bot/feishu/frames.py, which was checked byte for byte against the
official SDK's protobuf ``pbbp2.Frame`` when it was written.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from typing import Any

from aiohttp import WSMsgType, web

from bot.feishu.frames import CONTROL, DATA, Frame

SERVICE_ID = 33


class FeishuLink:
    def __init__(self, app_id: str, app_secret: str) -> None:
        self.app_id = app_id
        self.app_secret = app_secret
        self.base_url = ""
        self.config: dict[str, Any] = {
            "PingInterval": 120,
            "ReconnectInterval": 0,
            "ReconnectNonce": 0,
            "ReconnectCount": -1,
        }
        self.received: list[Frame] = []
        self.connections = 0
        self._sockets: list[web.WebSocketResponse] = []
        self._ids = itertools.count(1)
        self._changed = asyncio.Condition()

    async def endpoint(self, request: web.Request) -> web.Response:
        body = await request.json()
        if body.get("AppID") != self.app_id or body.get("AppSecret") != self.app_secret:
            return web.json_response({"code": 1000040344, "msg": "app credentials invalid"})
        url = self.base_url.replace("http://", "ws://") + (
            f"/ws?device_id=d{next(self._ids)}&service_id={SERVICE_ID}"
        )
        return web.json_response({"code": 0, "data": {"URL": url, "ClientConfig": self.config}})

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self._sockets.append(socket)
        self.connections += 1
        await self._notify()
        async for message in socket:
            if message.type == WSMsgType.BINARY:
                self.received.append(Frame.decode(message.data))
                await self._notify()
        return socket

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def wait_until(self, predicate: Callable[[], bool], *, within: float = 5.0) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(predicate), within)

    def pings(self) -> list[Frame]:
        return [f for f in self.received if f.method == CONTROL and f.header("type") == "ping"]

    async def drop(self) -> None:
        """Feishu closes the connection (a deploy on its side); the bot must come back."""
        for socket in self._sockets:
            await socket.close()
        self._sockets.clear()

    async def push(self, payload: dict[str, Any], *, kind: str = "event", parts: int = 1) -> Frame:
        """Send ``payload`` as a data frame (in ``parts`` pieces); the bot's answer frame."""
        await self.wait_until(lambda: any(not s.closed for s in self._sockets))
        socket = next(s for s in reversed(self._sockets) if not s.closed)
        message_id = f"msg-{next(self._ids)}"
        data = json.dumps(payload).encode()
        size = -(-len(data) // parts)
        for seq in range(parts):
            frame = Frame(
                seq_id=seq,
                service=SERVICE_ID,
                method=DATA,
                headers=[
                    ("type", kind),
                    ("message_id", message_id),
                    ("sum", str(parts)),
                    ("seq", str(seq)),
                    ("trace_id", f"trace-{message_id}"),
                ],
                payload=data[seq * size : (seq + 1) * size],
            )
            await socket.send_bytes(frame.encode())

        def answered() -> bool:
            return any(f.header("message_id") == message_id for f in self.received)

        await self.wait_until(answered)
        return next(f for f in self.received if f.header("message_id") == message_id)
