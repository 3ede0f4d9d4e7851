"""Vectors passed between the embedding caches of one process, by cache file.

The backfill embeds into its :class:`~rag.search.embeddings.CachedEmbeddings`; a lexical index
embeds a question's candidates on demand (:mod:`rag.search.on_demand`) before that cache
exists or while it fills. Each side reads what the other has (:func:`lookup`) and hands over
what it made (:func:`deposit`), so no passage is embedded twice: a deposit reaches every live
cache of that file and every one opened later in this process (deposits are few: a question's
candidates).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

Vector = np.ndarray[Any, np.dtype[np.float32]]


class Holder(Protocol):
    def adopt(self, vectors: Mapping[str, Vector]) -> None: ...

    def stored(self, keys: Sequence[str]) -> dict[str, Vector]: ...


_lock = threading.Lock()
_live: dict[Path, weakref.WeakSet[Any]] = {}
_deposited: dict[Path, dict[str, Vector]] = {}


def register(path: Path, holder: Holder) -> dict[str, Vector]:
    """``holder`` now caches ``path``'s vectors; what was deposited for that file so far."""
    with _lock:
        _live.setdefault(path, weakref.WeakSet()).add(holder)
        return dict(_deposited.get(path, {}))


def deposit(path: Path, vectors: Mapping[str, Vector]) -> None:
    """Hand ``vectors`` (by vector key) to the caches of ``path`` in this process."""
    with _lock:
        holders = list(_live.get(path, ()))
        _deposited.setdefault(path, {}).update(vectors)
    for holder in holders:
        holder.adopt(vectors)


def lookup(path: Path, keys: Sequence[str]) -> dict[str, Vector]:
    """The vectors of ``keys`` that a live cache of ``path`` holds."""
    with _lock:
        holders = list(_live.get(path, ()))
    found: dict[str, Vector] = {}
    for holder in holders:
        found.update(holder.stored([key for key in keys if key not in found]))
    return found
