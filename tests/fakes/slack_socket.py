"""Socket Mode for the fake Slack API: the WebSocket Slack pushes events through.

``apps.connections.open`` (app-level ``xapp-…`` token) hands out ``ws://127.0.0.1:…/link/``;
on connect the fake says ``hello`` like Slack; :meth:`SocketModeLink.push` sends an
``events_api`` or ``interactive`` envelope and :meth:`SocketModeLink.wait_for_ack` returns the
app's acknowledgement (``{"envelope_id": …}``) — Socket Mode's 3-second ack.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

from aiohttp import WSMsgType, web


class SocketModeLink:
    def __init__(self) -> None:
        self.sockets: list[web.WebSocketResponse] = []
        self.acks: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)
        self._changed = asyncio.Condition()

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(autoping=True)
        await socket.prepare(request)
        await socket.send_json({"type": "hello", "num_connections": 1, "debug_info": {}})
        async with self._changed:
            self.sockets.append(socket)
            self._changed.notify_all()
        try:
            async for message in socket:
                if message.type != WSMsgType.TEXT:
                    continue
                data = json.loads(message.data)
                async with self._changed:
                    self.acks[str(data.get("envelope_id"))] = data
                    self._changed.notify_all()
        finally:
            async with self._changed:
                self.sockets.remove(socket)
        return socket

    async def wait_connected(self, within: float = 5.0) -> None:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: bool(self.sockets)), within)

    async def push(self, payload: dict[str, Any], kind: str = "events_api") -> str:
        """Send ``payload`` to the connected app; returns the envelope id to await the ack."""
        envelope_id = f"env-{next(self._ids)}"
        envelope = {
            "envelope_id": envelope_id,
            "type": kind,
            "payload": payload,
            "accepts_response_payload": kind != "events_api",
            "retry_attempt": 0,
            "retry_reason": "",
        }
        await self.sockets[0].send_json(envelope)
        return envelope_id

    async def wait_for_ack(self, envelope_id: str, within: float = 3.0) -> dict[str, Any]:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: envelope_id in self.acks), within)
        return self.acks[envelope_id]

    async def close(self) -> None:
        for socket in list(self.sockets):
            await socket.close()
