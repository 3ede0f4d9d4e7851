"""Where an answer is, for whoever shows progress to the asker (a thread status, a log).

The pipeline calls a :data:`Progress` callback when it enters a stage of a *fresh* answer
(a cached or reviewed answer has no stages: it is there at once). The callback is a plain
function, not a coroutine: it must not hold the answer up, so an edge that talks to a chat
platform schedules its call and returns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

Stage = Literal["retrieving", "generating", "checking"]
Progress = Callable[[Stage], None]

STAGES: tuple[Stage, ...] = ("retrieving", "generating", "checking")
