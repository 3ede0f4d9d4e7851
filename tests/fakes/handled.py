"""When the Bolt app has finished handling what it received: the end of a test's "and then
nothing else happened", without waiting for a quiet window.

Bolt acknowledges Slack before the listener runs (``process_before_response=False``), so the
HTTP response says a request was received, not that it was answered. :meth:`Handled.install`
hooks the Bolt app's listener runner — its start and completion handlers wrap every listener
run, the app's error handler included — and :meth:`Handled.idle` returns once every listener
that started has finished. Whatever the bot sends for a request is sent by then; an assertion
that nothing else was sent is then exact, on a slow machine as on a fast one.

A listener that a request starts is always counted before the test sees that request's
response: bolt schedules the listener's task before it returns the response, and asyncio runs
the task's first step (the start handler) before the callbacks of any later I/O, the client's
read of that response included. A request no listener takes (a bad signature, the bot's own
echo) is finished when its response is back.
"""

from __future__ import annotations

import asyncio

from slack_bolt.async_app import AsyncApp
from slack_bolt.listener.async_listener_completion_handler import AsyncListenerCompletionHandler
from slack_bolt.listener.async_listener_start_handler import AsyncListenerStartHandler
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

IDLE_SECONDS = 5.0
"""How long a test waits, by default, for what the bot is handling to finish."""


class Handled:
    def __init__(self) -> None:
        self.started = 0
        self.finished = 0
        self._changed = asyncio.Condition()

    def install(self, bolt: AsyncApp) -> None:
        """Count ``bolt``'s listener runs (keeping the handlers it had, which only log)."""
        runner = bolt.listener_runner
        runner.listener_start_handler = _Started(self, runner.listener_start_handler)
        runner.listener_completion_handler = _Finished(self, runner.listener_completion_handler)

    async def idle(self, *, within: float = IDLE_SECONDS) -> None:
        """Return once every listener started so far has finished, else TimeoutError."""
        async with self._changed:
            await asyncio.wait_for(
                self._changed.wait_for(lambda: self.finished == self.started), within
            )

    async def _finish(self) -> None:
        async with self._changed:
            self.finished += 1
            self._changed.notify_all()


class _Started(AsyncListenerStartHandler):
    def __init__(self, handled: Handled, inner: AsyncListenerStartHandler) -> None:
        self.handled, self.inner = handled, inner

    async def handle(self, request: AsyncBoltRequest, response: BoltResponse | None) -> None:
        self.handled.started += 1  # first, before any await: see the module docstring
        await self.inner.handle(request=request, response=response)


class _Finished(AsyncListenerCompletionHandler):
    def __init__(self, handled: Handled, inner: AsyncListenerCompletionHandler) -> None:
        self.handled, self.inner = handled, inner

    async def handle(self, request: AsyncBoltRequest, response: BoltResponse | None) -> None:
        try:
            await self.inner.handle(request=request, response=response)
        finally:
            await self.handled._finish()
