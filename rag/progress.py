"""Where an answer is, for whoever shows progress to the asker (a thread status, a log).

The pipeline calls a :data:`Progress` callback when it enters a stage of a *fresh* answer
(a cached or reviewed answer has no stages: it is there at once). The callback is a plain
function, not a coroutine: it must not hold the answer up, so an edge that talks to a chat
platform schedules its call and returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

Stage = Literal["retrieving", "generating", "checking"]
Progress = Callable[[Stage], None]

STAGES: tuple[Stage, ...] = ("retrieving", "generating", "checking")


def tell(progress: Progress | None, stage: Stage) -> None:
    if progress is not None:
        progress(stage)


def elapsed_ms(since: float) -> float:
    """Milliseconds since ``since`` (a :func:`time.perf_counter` reading), as timings keep them."""
    return round((time.perf_counter() - since) * 1000, 3)
