"""The one fake clock of the tests: time moves only when a test moves it or the code sleeps.

Code under test takes its clock (``clock=``, a ``() -> float``) and, where it waits, its sleep
(``sleep=``, an ``async (seconds) -> None``) as arguments; tests pass one :class:`FakeClock`
for both, so a 5-minute cooldown or a retry's backoff takes no real time and the waits it asked
for can be asserted (``clock.waits == [1.0, 2.0]``).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class FakeClock:
    now: float = 1000.0
    waits: list[float] = field(default_factory=list)
    """Every ``sleep`` the code asked for, in order."""

    def __call__(self) -> float:
        return self.now

    def clock(self) -> float:
        """The same reading, for code that takes a bound method."""
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    async def sleep(self, seconds: float) -> None:
        """Records the wait and lets exactly that much time pass, at once."""
        self.waits.append(seconds)
        self.now += seconds
