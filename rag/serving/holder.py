"""The index being served, swapped whole: a question never sees half of a rebuild.

A rebuild makes a complete new :class:`~rag.search.index.Index` beside the served one (off the
event loop); :meth:`IndexHolder.swap` then replaces the reference in one assignment. Whoever
took :attr:`IndexHolder.current` before the swap — a question in flight — finishes on the old
index, which lives until nobody holds it. Readers that must follow the swap (the citation
buttons, the review desk) hold the holder itself: it answers ``version``, ``chunks``,
``chunk(id)`` and ``len()`` from whatever is current at the moment they ask.

:class:`ServingState` is what ``/healthz`` reports about it: mode (``lexical`` while the dense
vectors are computed in the background, then ``full``), backfill progress and how long it still
needs (at its rate over the last minutes), the last refresh.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal

from rag.chunks import Chunk
from rag.search.index import Index
from rag.search.progress_line import SmoothedRate

Mode = Literal["lexical", "full"]

LEXICAL_FIRST_AT = 128
"""Passages without a cached vector above which a starting bot (or ``rag ask``, the console)
answers lexically first (each question's candidates embedded on demand,
:mod:`rag.search.on_demand`) while the rest is embedded in the background. Fewer are embedded
before the first answer: the bundled e5 embeds 40–50 passages/s on 2 cores (onnxruntime,
int8), so a knowledge base of that size (``docs/``: 46 passages) waits a few seconds once and
answers in full mode from its first question."""


@dataclass(frozen=True, slots=True)
class Refresh:
    """One refresh attempt: what set it off, how it ended, and the files it had to skip."""

    at: float
    trigger: str
    """``docs changed`` (the scan), ``published`` (another process or ``rag index``), …"""
    outcome: Literal["swapped", "unchanged", "failed"]
    version: str
    seconds: float
    skipped: tuple[tuple[str, str], ...] = ()
    """(file, reason) of every file the build could not read."""
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ServingState:
    mode: Mode
    built_at: float
    """When the served index was swapped in (epoch seconds)."""
    documents: int
    backfill_done: int = 0
    backfill_total: int = 0
    vectors: int = 0
    """Distinct vectors the served passages need; ``backfill_total`` of them were missing."""
    last_refresh: Refresh | None = None


@dataclass
class IndexHolder:
    _index: Index
    mode: Mode = "full"
    documents: int = 0
    clock: Callable[[], float] = time.time
    _state: ServingState = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _rate: SmoothedRate = field(default_factory=SmoothedRate, init=False, repr=False)
    """The backfill's passages a second over the last minutes, for ``seconds_left``."""

    def __post_init__(self) -> None:
        documents = self.documents or len({chunk.source for chunk in self._index.chunks})
        self._state = ServingState(self.mode, self.clock(), documents)

    @property
    def current(self) -> Index:
        return self._index

    @property
    def state(self) -> ServingState:
        return self._state

    def swap(self, index: Index, *, mode: Mode, documents: int | None = None) -> Index:
        """Serve ``index`` from now on; returns the one it replaces."""
        with self._lock:
            old, self._index = self._index, index
            count = documents if documents is not None else len({c.source for c in index.chunks})
            self._state = replace(self._state, mode=mode, built_at=self.clock(), documents=count)
        return old

    def progress(self, done: int, total: int, *, vectors: int | None = None) -> None:
        with self._lock:
            state = replace(self._state, backfill_done=done, backfill_total=total)
            self._state = state if vectors is None else replace(state, vectors=vectors)
            self._rate.add(done)

    def seconds_left(self) -> float | None:
        """How long the backfill still needs at its recent rate; ``None`` before it has one
        (or when there is none under way)."""
        state = self._state
        if state.mode != "lexical" or state.backfill_done >= state.backfill_total:
            return None
        with self._lock:
            return self._rate.seconds_left(state.backfill_total - state.backfill_done)

    def refreshed(self, refresh: Refresh) -> None:
        with self._lock:
            self._state = replace(self._state, last_refresh=refresh)

    def describe(self) -> dict[str, Any]:
        """What ``/healthz`` shows about the served index (JSON-ready, no document text)."""
        state, index = self._state, self._index
        last = state.last_refresh
        store = {} if index.store is None else {"vector_store": index.store.describe()}
        return store | {
            "version": index.version,
            "passages": len(index),
            "documents": state.documents,
            "age_seconds": round(self.clock() - state.built_at),
            "mode": state.mode,
            "backfill": {
                "done": state.backfill_done,
                "total": state.backfill_total,
                "seconds_left": None if (left := self.seconds_left()) is None else round(left),
            },
            "last_refresh": None
            if last is None
            else {
                "at": datetime.fromtimestamp(last.at, UTC).isoformat(timespec="seconds"),
                "trigger": last.trigger,
                "outcome": last.outcome,
                "version": last.version,
                "seconds": last.seconds,
                "skipped": [{"file": f, "reason": r} for f, r in last.skipped],
                "error": last.error,
            },
        }

    # -- the live view: always the current index ---------------------------------------------

    @property
    def version(self) -> str:
        return self._index.version

    @property
    def chunks(self) -> tuple[Chunk, ...]:
        return self._index.chunks

    def __len__(self) -> int:
        return len(self._index)

    def chunk(self, chunk_id: str) -> Chunk | None:
        return self._index.chunk(chunk_id)
