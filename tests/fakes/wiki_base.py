"""What the fake wikis share: an aiohttp server on 127.0.0.1, recorded calls, scripted faults.

Faults are per endpoint and count-limited, as in :mod:`tests.fakes.feishu_api`::

    wiki.rate_limit("pages", times=2, wait=7)   # 429 + the service's wait header, twice
    wiki.fail("page", status=502, times=1)
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

from aiohttp import web


@dataclass(frozen=True, slots=True)
class Call:
    endpoint: str
    method: str
    path: str
    query: dict[str, str]
    status: int


@dataclass(slots=True)
class Fault:
    times: int
    status: int
    code: int = 0
    wait: float | None = None


class FakeService:
    """Subclasses add their routes in :meth:`routes` and call :meth:`fault` per request."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self._faults: dict[str, list[Fault]] = {}
        self._runner: web.AppRunner | None = None
        self._port = 0

    @property
    def url(self) -> str:
        if self._runner is None:
            msg = f"{type(self).__name__} is not started; use `async with`"
            raise RuntimeError(msg)
        return f"http://127.0.0.1:{self._port}"

    def routes(self, app: web.Application) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        app = web.Application()
        self.routes(app)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    # -- test controls ---------------------------------------------------------------------

    def fail(self, endpoint: str, *, status: int = 500, code: int = 0, times: int = 1) -> None:
        self._faults.setdefault(endpoint, []).append(Fault(times, status, code))

    def heal(self) -> None:
        """Forget every scripted fault not yet served: the wiki answers again."""
        self._faults.clear()

    def calls_to(self, endpoint: str) -> list[Call]:
        return [call for call in self.calls if call.endpoint == endpoint]

    # -- for the subclasses ----------------------------------------------------------------

    def fault(self, endpoint: str) -> Fault | None:
        """The scripted fault this call of ``endpoint`` gets, if any (and counts it down)."""
        queue = self._faults.get(endpoint) or []
        if not queue:
            return None
        fault = queue[0]
        fault.times -= 1
        if fault.times <= 0:
            queue.pop(0)
        return fault

    def record(self, endpoint: str, request: web.Request, status: int) -> None:
        self.calls.append(Call(endpoint, request.method, request.path, dict(request.query), status))


def json_response(
    service: FakeService,
    endpoint: str,
    request: web.Request,
    body: Any,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> web.Response:
    service.record(endpoint, request, status)
    return web.json_response(body, status=status, headers=headers)
