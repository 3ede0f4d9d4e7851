"""What ``/healthz`` says about a backfill: how far it is and how long it still needs."""

from __future__ import annotations

from rag.search.index import Index
from rag.serving.holder import IndexHolder
from tests.rag.factories import make_hit


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_healthz_says_how_long_the_backfill_still_needs_at_its_recent_rate() -> None:
    index = Index([make_hit("退费按课时。").chunk], vectors=None, embeddings=None, version="v")
    holder = IndexHolder(index, mode="lexical")
    clock = Clock()
    holder._rate.clock = clock  # the rate's own clock: monotonic seconds
    assert holder.describe()["backfill"]["seconds_left"] is None  # no rate yet
    for second in range(0, 120, 10):
        clock.now = 1000.0 + second
        holder.progress(second * 4, 1000)  # 4 passages a second
    backfill = holder.describe()["backfill"]
    assert backfill == {"done": 440, "total": 1000, "seconds_left": 140}

    holder.swap(index, mode="full")
    assert holder.describe()["backfill"]["seconds_left"] is None  # done: nothing left
