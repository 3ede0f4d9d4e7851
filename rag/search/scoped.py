"""Which rows of an index one scope set may see, computed once and then looked up.

Retrieval filters *before* ranking (:meth:`rag.search.index.Index.search` takes the rows), so
the top k are all passages the asker may see and the gate scores nothing else. Matching globs
against 100k chunk paths on every question would cost more than the search itself, so the rows
are computed once per (index version, scope key) — globs are matched once per distinct
document, not per chunk — and kept in a small LRU. A rebuilt index has a new version, so its
rows are computed afresh.

Ranking statistics (BM25's idf, document lengths) stay those of the whole index: they carry no
passage text, and keeping them makes a passage's score the same whichever scope asks.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from rag.chunks import Chunk
from rag.scopes.sets import ScopeSet
from rag.search.fusion import RowArray

MAX_SETS = 64
"""Distinct (index, scope set) pairs kept; a workspace has a handful of scope sets."""


def allowed_rows(chunks: Sequence[Chunk], scope: ScopeSet) -> RowArray:
    """Rows of ``chunks`` whose document ``scope`` allows, ascending."""
    verdicts = {source: scope.allows(source) for source in {c.source for c in chunks}}
    mask = np.fromiter((verdicts[c.source] for c in chunks), dtype=bool, count=len(chunks))
    return np.flatnonzero(mask)


class ScopedRows:
    """``rows(version, chunks, scope)``: the cached :func:`allowed_rows`; ``None`` = all."""

    def __init__(self, max_sets: int = MAX_SETS) -> None:
        if max_sets < 1:
            msg = f"max_sets ({max_sets}) must be at least 1"
            raise ValueError(msg)
        self._max = max_sets
        self._rows: OrderedDict[tuple[str, str], RowArray] = OrderedDict()
        self._lock = threading.Lock()  # searches run in worker threads

    def rows(self, version: str, chunks: Sequence[Chunk], scope: ScopeSet) -> RowArray | None:
        if scope.unrestricted:
            return None
        key = (version, scope.key)
        with self._lock:
            found = self._rows.get(key)
            if found is not None:
                self._rows.move_to_end(key)
                return found
        computed = allowed_rows(chunks, scope)
        computed.setflags(write=False)
        with self._lock:
            self._rows[key] = computed
            while len(self._rows) > self._max:
                self._rows.popitem(last=False)
        return computed
