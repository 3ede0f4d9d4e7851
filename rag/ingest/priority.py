"""Where a running bot rebuilds its index: one thread of its own, at the lowest CPU priority.

A rebuild embeds passages for seconds to minutes with every core it can get; the questions
asked meanwhile must not wait for it. On Linux a thread's nice value is its own (setpriority
on its thread id), and the threads the embedder's OpenMP runtime starts from that thread
inherit it, so the scheduler gives a question's threads the cores first and the rebuild what
is left. Elsewhere the thread runs at normal priority (logged once).

Raising a nice value needs no privilege; lowering it again would, which is why rebuilds get a
thread of their own instead of lowering a shared worker of the default executor for good.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

logger = logging.getLogger(__name__)

LOWEST = 19
"""The lowest priority a nice value gives (Linux: weight 15 against 1024 at nice 0)."""

T = TypeVar("T")


def lower_this_thread(nice: int = LOWEST) -> bool:
    """Give the calling thread (and threads it starts later) the nice value ``nice``."""
    try:
        tid = threading.get_native_id()
        current = os.getpriority(os.PRIO_PROCESS, tid)
        if current < nice:
            os.setpriority(os.PRIO_PROCESS, tid, nice)
    except (OSError, AttributeError) as error:
        logger.info("index rebuilds run at normal priority (%s)", error)
        return False
    return True


class BackgroundBuilds:
    """One low-priority thread that runs rebuilds, one at a time."""

    def __init__(self, nice: int = LOWEST) -> None:
        self._executor = ThreadPoolExecutor(
            max_workers=1,
            thread_name_prefix="citebot-index-build",
            initializer=lower_this_thread,
            initargs=(nice,),
        )

    async def run(self, work: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, work)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
