"""Which rows of an index are in force today, for one audience: the lifecycle filter of retrieval.

Like a scope (:mod:`rag.search.scoped`), it filters *before* ranking, so the top k are all
passages of documents in force and the refusal gate scores nothing else: a superseded page can
neither take a slot from its successor nor lift a question over the threshold. The passages of
lapsed (superseded, deprecated, archived, expired) and upcoming documents are kept aside as
their own rows, searched only when nothing in force answers, so the asker can be told that the
only source is no longer in force (:mod:`rag.lifecycle`). Drafts are in force only for an
audience whose scope includes drafts.

An index whose every document is current costs nothing: the scope's rows are used as they are.
Otherwise the rows are computed once per (index version, scope, day) and kept in a small LRU;
``stamp`` names which dated documents are in force today, so an answer cached yesterday from a
policy that expired at midnight is not served today.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Protocol

import numpy as np

from rag.chunks import Chunk, content_hash
from rag.scopes.sets import ScopeSet
from rag.search.fusion import RowArray
from rag.search.scoped import ScopedRows

MAX_SETS = 64

_NONE: RowArray = np.zeros(0, np.intp)
_NONE.setflags(write=False)


class Indexed(Protocol):
    """What the rows are computed from (an :class:`~rag.search.index.Index`)."""

    @property
    def version(self) -> str: ...

    @property
    def chunks(self) -> Sequence[Chunk]: ...


@dataclass(frozen=True, slots=True)
class InForce:
    answerable: RowArray | None
    """The rows an answer may be built from (``None``: every row)."""
    lapsed: RowArray
    """The rows of documents the audience may see that are not in force (lapsed, upcoming)."""
    stamp: str = ""
    """Which dated documents stand how today ("" when no document carries a date that
    changes its standing): part of the answer cache's key."""


def in_force_rows(
    chunks: Sequence[Chunk], scoped: RowArray | None, *, drafts: bool, today: date
) -> InForce:
    """The rows of ``chunks`` among ``scoped`` (``None``: all) that are in force on ``today``."""
    standings: dict[str, str] = {}
    dated: list[str] = []
    for chunk in chunks:
        if chunk.source in standings:
            continue
        life = chunk.lifecycle
        standings[chunk.source] = life.standing(today)
        if life.expires or life.effective:
            dated.append(f"{chunk.source}={standings[chunk.source]}")
    stamp = content_hash("\n".join(dated))[:12] if dated else ""
    if all(standing == "current" for standing in standings.values()):
        return InForce(scoped, _NONE, stamp)
    ok = {"current", "draft"} if drafts else {"current"}
    allowed = np.fromiter((standings[c.source] in ok for c in chunks), bool, len(chunks))
    out = np.fromiter(
        (standings[c.source] in ("lapsed", "upcoming") for c in chunks), bool, len(chunks)
    )
    if scoped is not None:
        inside = np.zeros(len(chunks), bool)
        inside[scoped] = True
        allowed &= inside
        out &= inside
    answerable, lapsed = np.flatnonzero(allowed), np.flatnonzero(out)
    answerable.setflags(write=False)
    lapsed.setflags(write=False)
    return InForce(answerable, lapsed, stamp)


class InForceRows:
    """``rows(version, chunks, scoped, key, drafts, today)``: the cached :func:`in_force_rows`
    (the same arrays each time, which the Qdrant scope filter relies on to build its filter
    once)."""

    def __init__(self, max_sets: int = MAX_SETS) -> None:
        self._max = max_sets
        self._rows: OrderedDict[tuple[str, str, str], InForce] = OrderedDict()
        self._lock = threading.Lock()

    def rows(
        self,
        version: str,
        chunks: Sequence[Chunk],
        scoped: RowArray | None,
        *,
        scope_key: str,
        drafts: bool,
        today: date,
    ) -> InForce:
        key = (version, scope_key, today.isoformat())
        with self._lock:
            found = self._rows.get(key)
            if found is not None:
                self._rows.move_to_end(key)
                return found
        computed = in_force_rows(chunks, scoped, drafts=drafts, today=today)
        with self._lock:
            self._rows[key] = computed
            while len(self._rows) > self._max:
                self._rows.popitem(last=False)
        return computed


class Standings:
    """``of(index, scope, key, today)``: the rows ``scope`` may see (:class:`ScopedRows`) and,
    among them, those in force on ``today`` (:class:`InForceRows`), both cached."""

    def __init__(self) -> None:
        self._scoped = ScopedRows()
        self._in_force = InForceRows()

    def of(self, index: Indexed, scope: ScopeSet, key: str, today: date) -> InForce:
        scoped = self._scoped.rows(index.version, index.chunks, scope)
        return self._in_force.rows(
            index.version, index.chunks, scoped, scope_key=key, drafts=scope.drafts, today=today
        )
