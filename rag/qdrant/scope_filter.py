"""A scope as a payload filter that Qdrant applies inside the search, before ranking.

The pipeline turns an asker's scope into the rows they may see (:mod:`rag.search.scoped`,
globs matched once per document). Filtering Qdrant's top k afterwards could leak nothing (a
row outside is dropped) but would starve: the nearest passages could all be out of scope. So
the rows become a filter on the points' ``paths`` (every folder a source is in, and the source
itself: :mod:`rag.qdrant.points`) that the engine applies while it searches.

Kept short: a folder all of whose documents (in this index) are allowed is one condition,
``hr/``, not one per document; when more is allowed than not, the filter names what is
excluded instead. A document another process added since (not in this index) may pass such a
folder condition, but this process cannot show a passage it does not hold: its id maps to no
row and is dropped (:class:`rag.qdrant.points.RowsById`), so nothing leaks.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Collection, Sequence

import numpy as np
import numpy.typing as npt
from qdrant_client import models

from rag.qdrant.points import folders

MAX_FILTERS = 64
"""Distinct scopes' filters kept per index (as many as the pipeline keeps rows for)."""


def compressed(chosen: Collection[str], documents: Sequence[str]) -> list[str]:
    """The fewest ``paths`` values that cover exactly ``chosen`` among ``documents``: each
    chosen document's highest folder whose documents are all chosen, else itself."""
    total: Counter[str] = Counter()
    taken: Counter[str] = Counter()
    for source in documents:
        for folder in folders(source):
            total[folder] += 1
            taken[folder] += source in chosen
    values: dict[str, None] = {}
    for source in documents:
        if source not in chosen:
            continue
        whole = next((f for f in folders(source) if taken[f] == total[f]), source)
        values[whole] = None
    return list(values)


def scope_filter(allowed: Collection[str], documents: Sequence[str]) -> models.Filter:
    """The filter admitting the points of ``allowed`` (sources) among ``documents`` (every
    source of the index, each once)."""
    excluded = [source for source in documents if source not in allowed]
    admit = compressed(allowed, documents)
    deny = compressed(set(excluded), documents)
    if len(deny) < len(admit):
        return models.Filter(must_not=[_any_path(deny)])
    return models.Filter(must=[_any_path(admit)])


def _any_path(values: list[str]) -> models.FieldCondition:
    return models.FieldCondition(key="paths", match=models.MatchAny(any=values))


class ScopeFilters:
    """The filter of each distinct set of rows, made once: the pipeline passes the same rows
    array for a scope until the index changes (:class:`rag.search.scoped.ScopedRows`)."""

    def __init__(self, sources: Sequence[str]) -> None:
        self.sources = sources
        """Each row's source."""
        self.documents = list(dict.fromkeys(sources))
        self._made: OrderedDict[int, tuple[object, models.Filter]] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, rows: npt.NDArray[np.intp]) -> models.Filter:
        with self._lock:
            kept = self._made.get(id(rows))
            if kept is not None and kept[0] is rows:  # the very array, not a reused id
                return kept[1]
        allowed = {self.sources[row] for row in rows.tolist()}
        made = scope_filter(allowed, self.documents)
        with self._lock:
            self._made[id(rows)] = (rows, made)
            while len(self._made) > MAX_FILTERS:
                self._made.popitem(last=False)
        return made
