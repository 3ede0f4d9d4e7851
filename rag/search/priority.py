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
import threading
from concurrent.futures import ThreadPoolExecutor

logger = logging.getLogger(__name__)

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


def low_priority_thread(name: str) -> ThreadPoolExecutor:
    """One worker thread, at the lowest priority from its start."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix=name, initializer=lower_this_thread)
