"""How far opening an index is and how long it still needs, as one line a person reads.

Opening a new folder goes through stages — reading its files, splitting them, counting the
passages' terms, embedding them — and each says how far it is (:data:`STAGES`): a folder of
1,200 pages takes seconds to read before the first passage exists, and a person waiting
should see that at once, not after the whole folder was read.

The rate is smoothed over the last :data:`WINDOW_SECONDS` of batches, not over the whole run
nor the last batch: the bundled e5's rate on 2 cores varies severalfold with passage
length and with what else runs, and an ETA from the last batch alone swung between 41 min and
5 h 20 min on one folder. Over a terminal the line is redrawn in place; into a log or a pipe a
new line is written every :data:`EVERY_SECONDS`, never a bar.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Literal, TextIO

WINDOW_SECONDS = 300.0
"""The rate is measured over the batches of the last five minutes."""
EVERY_SECONDS = 5.0
"""How often a line is written when output is not a terminal."""

Stage = Literal["reading", "splitting", "counting terms", "embedding"]
STAGES: dict[Stage, str] = {
    "reading": "files",
    "splitting": "files",
    "counting terms": "passages",
    "embedding": "passages",
}
"""What each stage counts."""

OnStage = Callable[[Stage, int, int], None]
"""Called with (stage, done so far, to do in all) at a stage's start and as it goes."""
QUIET_SECONDS = 1.0
AT_ONCE = 100
"""A stage before embedding with fewer than :data:`AT_ONCE` things to do is reported once it
has run :data:`QUIET_SECONDS`: reading the two files that changed is not worth a line; a new
folder of 1,200 files says so the moment reading starts."""


class SmoothedRate:
    """Passages a second over the last ``window`` seconds (the whole run while it is shorter)."""

    def __init__(
        self, *, window: float = WINDOW_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.window = window
        self.clock = clock
        self._samples: deque[tuple[float, int]] = deque()

    def add(self, done: int) -> None:
        now = self.clock()
        self._samples.append((now, done))
        while len(self._samples) > 2 and now - self._samples[1][0] >= self.window:
            self._samples.popleft()

    def per_second(self) -> float | None:
        if len(self._samples) < 2:
            return None
        (first, done_first), (last, done_last) = self._samples[0], self._samples[-1]
        if last <= first or done_last <= done_first:
            return None
        return (done_last - done_first) / (last - first)

    def seconds_left(self, remaining: int) -> float | None:
        rate = self.per_second()
        return None if rate is None else remaining / rate


def duration(seconds: float) -> str:
    """``2 h 16 min``, ``12 min``, ``40 s``: as precise as a person needs."""
    if seconds < 60:
        return f"{max(1, round(seconds))} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60} min"


def progress_text(done: int, total: int, rate: SmoothedRate, stage: Stage = "embedding") -> str:
    share = 100 * done / total if total else 100.0
    line = f"{stage}: {done:,} of {total:,} {STAGES[stage]} ({share:.1f}%)"
    per_second = rate.per_second()
    left = rate.seconds_left(total - done)
    if per_second is not None and left is not None:
        line += f", {per_second:.1f}/s, about {duration(left)} left"
    return line


class ProgressLine:
    """Reports ``(done, total)`` updates on ``stream`` (a terminal: in place; else a line every
    ``every`` seconds, and the first update of each stage at once). Called as ``line(done,
    total)`` it reports embedding; :meth:`stage` reports the stages before it."""

    def __init__(
        self,
        stream: TextIO,
        *,
        every: float = EVERY_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        terminal: bool | None = None,
        quiet: float = QUIET_SECONDS,
    ) -> None:
        self.stream = stream
        self.every = every
        self.quiet = quiet
        self.clock = clock
        self.rate = SmoothedRate(clock=clock)
        self.terminal = stream.isatty() if terminal is None else terminal
        self._written: float | None = None
        self._drawn = False
        self._stage: Stage = "embedding"
        self._total: int | None = None
        self._started = 0.0

    def __call__(self, done: int, total: int) -> None:
        self.stage("embedding", done, total)

    def stage(self, stage: Stage, done: int, total: int) -> None:
        """One update of ``stage`` (an :data:`OnStage`): a new stage (or a new total: another
        run of it) starts a new rate."""
        now = self.clock()
        if (stage, total) != (self._stage, self._total):
            self._stage, self._total, self._written, self._started = stage, total, None, now
            self.rate = SmoothedRate(window=self.rate.window, clock=self.clock)
        self.rate.add(done)
        quiet = stage != "embedding" and total < AT_ONCE
        if not total or (quiet and now - self._started < self.quiet):
            return
        text = progress_text(done, total, self.rate, stage)
        if self.terminal:
            self.stream.write(f"\r{text}\x1b[K")
            self._drawn = True
        elif self._written is None or now - self._written >= self.every or done == total:
            self.stream.write(text + "\n")
            self._written = now
        self.stream.flush()

    def close(self) -> None:
        """Ends a line drawn in place, so what follows starts on its own line."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
