"""One computation per key at a time, within one process.

When twenty people ask the same question in the same second, one answer is generated and the
other nineteen wait for it. The work runs as its own task, so an asker who goes away (its
handler is cancelled) does not cancel the answer the others are waiting for; everyone
awaiting the key gets the same result, or the same exception.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


def _retrieve(task: asyncio.Task[object]) -> None:
    # Mark a failure as seen even when every waiter went away, so it is not reported at exit.
    if not task.cancelled():
        task.exception()


class SingleFlight(Generic[T]):
    def __init__(self) -> None:
        self._running: dict[str, asyncio.Task[T]] = {}

    def __len__(self) -> int:
        return len(self._running)

    async def run(self, key: str, work: Callable[[], Awaitable[T]]) -> tuple[T, bool]:
        """``work()``'s result, and whether it was shared from a call already running."""
        task = self._running.get(key)
        shared = task is not None
        if task is None:
            task = asyncio.ensure_future(work())
            self._running[key] = task
            task.add_done_callback(_retrieve)
            task.add_done_callback(lambda done: self._forget(key, done))
        return await asyncio.shield(task), shared

    def _forget(self, key: str, task: asyncio.Task[T]) -> None:
        if self._running.get(key) is task:
            del self._running[key]
