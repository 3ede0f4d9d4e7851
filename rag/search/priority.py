"""Work that must never slow a question down runs on threads at the lowest CPU priority.

On Linux a thread's nice value is its own (setpriority on its thread id), and threads it starts
later inherit it — the OpenMP workers the bundled e5 starts from the thread that calls it
included — so the scheduler gives a question's threads the cores first and that work what is
left; on an otherwise idle machine it still gets every idle core. Elsewhere it runs at normal
priority (logged once). Raising a nice value needs no privilege; lowering it again would, which
is why such work gets a thread of its own instead of lowering a shared worker for good.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")

LOWEST = 19
"""The lowest priority a nice value gives (Linux: weight 15 against 1024 at nice 0)."""


def lower_this_thread(nice: int = LOWEST) -> bool:
    """Give the calling thread (and threads it starts later) the nice value ``nice``."""
    try:
        tid = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, tid) < nice:
            os.setpriority(os.PRIO_PROCESS, tid, nice)
    except (OSError, AttributeError) as error:
        logger.info("background embedding runs at normal priority (%s)", error)
        return False
    return True


class LowPriorityThread:
    """One daemon worker thread at the lowest priority, running what is submitted in order.

    A daemon, unlike a :class:`~concurrent.futures.ThreadPoolExecutor`'s worker: a process
    stopping (Ctrl-C) must not wait for the batch it runs — at this priority on a busy machine
    one took a minute — whose vectors nobody will use (the build stopped without them)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: queue.SimpleQueue[_Work[Any]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        future: Future[T] = Future()
        self._queue.put(_Work(future, fn, args))
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        return future

    def _run(self) -> None:
        lower_this_thread()
        while True:
            work = self._queue.get()
            if not work.future.set_running_or_notify_cancel():
                continue
            try:
                work.future.set_result(work.fn(*work.args))
            except BaseException as error:  # noqa: BLE001 - the submitter's to handle
                work.future.set_exception(error)


@dataclass(frozen=True, slots=True)
class _Work(Generic[T]):
    future: Future[T]
    fn: Callable[..., T]
    args: tuple[Any, ...]


def low_priority_thread(name: str) -> LowPriorityThread:
    """One worker thread, at the lowest priority from its start."""
    return LowPriorityThread(name)
