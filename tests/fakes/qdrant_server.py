"""A fake Qdrant server on 127.0.0.1: the REST endpoints qdrant-client uses, served over HTTP
by qdrant-client's own in-memory engine.

No Qdrant binary is available here, and local mode locks its folder to one process, so two bot
processes cannot share it. This server can be shared: each bot connects with its own
``QdrantClient(url=...)`` over real HTTP, exactly as to a server, and holds no vector. Requests
are parsed with the client's REST models and answered by ``QdrantClient(":memory:")`` (the
same engine as local mode), so filters, ``has_id``, facets and metadata behave as the client
expects of a server. It runs on a thread and loop of its own, like a server elsewhere: the bot's
client is synchronous and may call it from the bot's event loop thread at start-up.

``stop()`` and ``start()`` (same port) make it unreachable and back: an outage.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from pydantic import BaseModel
from qdrant_client import QdrantClient
from qdrant_client.http import models as m

Handler = Callable[[web.Request], Awaitable[web.Response]]


def _json(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, list):
        return [_json(item) for item in value]
    return value


def _ok(result: Any) -> web.Response:
    return web.json_response({"result": _json(result), "status": "ok", "time": 0.0})


class FakeQdrantServer:
    def __init__(self) -> None:
        self.engine = QdrantClient(":memory:")
        self.requests: list[str] = []
        """``METHOD path`` of every request served, for tests that count round trips."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
            self._runner = None

    def close(self) -> None:
        self.stop()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
        self.engine.close()

    async def _start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        prefix = "/collections/{name}"
        routes = [
            ("GET", "/", self._version),
            ("GET", prefix + "/exists", self._exists),
            ("GET", prefix, self._info),
            ("PUT", prefix, self._create),
            ("PATCH", prefix, self._update),
            ("DELETE", prefix, self._delete_collection),
            ("PUT", prefix + "/index", self._index),
            ("POST", prefix + "/points", self._retrieve),
            ("PUT", prefix + "/points", self._upsert),
            ("POST", prefix + "/points/delete", self._delete),
            ("POST", prefix + "/points/scroll", self._scroll),
            ("POST", prefix + "/points/query/batch", self._query_batch),
            ("POST", prefix + "/facet", self._facet),
            ("POST", prefix + "/points/count", self._count),
        ]
        for method, path, handler in routes:
            app.router.add_route(method, path, self._counted(handler))
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    def _counted(self, handler: Handler) -> Handler:
        async def run(request: web.Request) -> web.Response:
            self.requests.append(f"{request.method} {request.path}")
            return await handler(request)

        return run

    async def _version(self, request: web.Request) -> web.Response:
        # What the client asks first, to check it speaks the server's version.
        return web.json_response({"title": "qdrant - vector search engine", "version": "1.16.0"})

    # -- collections ---------------------------------------------------------------------------

    async def _exists(self, request: web.Request) -> web.Response:
        return _ok({"exists": self.engine.collection_exists(request.match_info["name"])})

    async def _info(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if not self.engine.collection_exists(name):
            return web.json_response({"status": {"error": f"Not found: {name}"}}, status=404)
        return _ok(self.engine.get_collection(name))

    async def _create(self, request: web.Request) -> web.Response:
        body = m.CreateCollection.model_validate(await request.json())
        name = request.match_info["name"]
        if self.engine.collection_exists(name):
            error = f"Collection `{name}` already exists!"
            return web.json_response({"status": {"error": error}}, status=409)
        self.engine.create_collection(name, vectors_config=body.vectors, metadata=body.metadata)
        return _ok(True)

    async def _update(self, request: web.Request) -> web.Response:
        body = m.UpdateCollection.model_validate(await request.json())
        self.engine.update_collection(request.match_info["name"], metadata=body.metadata)
        return _ok(True)

    async def _delete_collection(self, request: web.Request) -> web.Response:
        return _ok(self.engine.delete_collection(request.match_info["name"]))

    async def _index(self, request: web.Request) -> web.Response:
        # Payload indexes only speed a real server up; the in-memory engine filters without.
        return _ok(m.UpdateResult(operation_id=0, status=m.UpdateStatus.COMPLETED))

    # -- points --------------------------------------------------------------------------------

    async def _retrieve(self, request: web.Request) -> web.Response:
        body = m.PointRequest.model_validate(await request.json())
        found = self.engine.retrieve(
            request.match_info["name"],
            body.ids,
            with_payload=body.with_payload if body.with_payload is not None else True,
            with_vectors=body.with_vector if body.with_vector is not None else False,
        )
        return _ok(found)

    async def _upsert(self, request: web.Request) -> web.Response:
        body = m.PointsList.model_validate(await request.json())
        return _ok(self.engine.upsert(request.match_info["name"], body.points))

    async def _delete(self, request: web.Request) -> web.Response:
        raw = await request.json()
        selector: m.PointsSelector
        if "filter" in raw:
            selector = m.FilterSelector.model_validate(raw)
        else:
            selector = m.PointIdsList.model_validate(raw)
        return _ok(self.engine.delete(request.match_info["name"], selector))

    async def _scroll(self, request: web.Request) -> web.Response:
        body = m.ScrollRequest.model_validate(await request.json())
        points, offset = self.engine.scroll(
            request.match_info["name"],
            scroll_filter=body.filter,
            limit=body.limit or 10,
            offset=body.offset,
            with_payload=body.with_payload if body.with_payload is not None else True,
            with_vectors=body.with_vector if body.with_vector is not None else False,
        )
        return _ok({"points": _json(points), "next_page_offset": offset})

    async def _query_batch(self, request: web.Request) -> web.Response:
        body = m.QueryRequestBatch.model_validate(await request.json())
        return _ok(self.engine.query_batch_points(request.match_info["name"], body.searches))

    async def _facet(self, request: web.Request) -> web.Response:
        body = m.FacetRequest.model_validate(await request.json())
        found = self.engine.facet(
            request.match_info["name"],
            body.key,
            facet_filter=body.filter,
            limit=body.limit or 10,
            exact=bool(body.exact),
        )
        return _ok(found)

    async def _count(self, request: web.Request) -> web.Response:
        body = m.CountRequest.model_validate(await request.json())
        return _ok(self.engine.count(request.match_info["name"], count_filter=body.filter))
