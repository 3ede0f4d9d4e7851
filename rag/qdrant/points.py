"""How a passage is stored in the collection: its point id, its payload, the collection's record.

A point's id is a 63-bit number derived from the passage's source, its content hash
(:attr:`Chunk.hash`) and how many identical passages come before it in that source: the same
passage always gets the same id, on every machine, so a re-index sends only what changed, and a
bot process maps a returned id to its passage with one sorted array (16 bytes a passage, where
a dict of UUID strings would take ~100 bytes).

The payload is what filters and operators need, never the passage's text (the processes hold
that): ``source``, ``heading``, ``paths`` (every folder the source is in, ``hr/``,
``hr/leave/``, and the source itself: what scope filters match, :mod:`rag.qdrant.scope_filter`),
``language``, ``content_hash``, ``vector_key`` (the embedded text's hash: a renamed file's
vectors are reused) and ``doc_id``; and the document's lifecycle (:mod:`rag.lifecycle`):
``status`` and ``updated`` always, ``effective``, ``expires`` and ``superseded_by`` when it states
them, for operators and filters. Which passages may be cited is decided by the process from
its own copy of the same lifecycle and sent as rows (the scope filter), so a point written
before points had these fields (no ``status``: read it as ``current``) answers the same. A
stated status is part of the point's id (:attr:`Chunk.hash`): a page marked superseded is
written again with its new payload, its vector reused.

The collection's metadata records the embedder, the vectors' size and the index version it
holds whole (``syncing:<version>`` while a build writes), so a process opening that version
checks nothing point by point.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from rag.chunks import Chunk
from rag.language import detect_language

IdArray = npt.NDArray[np.uint64]

FORMAT = 1
"""The layout of points and metadata; another one means the collection is not ours to use."""


def point_ids(chunks: Sequence[Chunk]) -> IdArray:
    """Each chunk's point id, in order."""
    seen: dict[tuple[str, str], int] = {}
    ids = np.empty(len(chunks), np.uint64)
    for row, chunk in enumerate(chunks):
        key = (chunk.source, chunk.hash)
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        text = f"{chunk.source}\n{chunk.hash}\n{occurrence}".encode()
        digest = hashlib.blake2b(text, digest_size=8).digest()
        ids[row] = int.from_bytes(digest, "big") >> 1  # Qdrant's ids are unsigned 64-bit
    return ids


def folders(source: str) -> Iterator[str]:
    """``hr/leave/a.md`` -> ``hr/``, ``hr/leave/``."""
    parts = source.split("/")[:-1]
    for end in range(1, len(parts) + 1):
        yield "/".join(parts[:end]) + "/"


def payload(chunk: Chunk) -> dict[str, Any]:
    return {
        "source": chunk.source,
        "heading": chunk.heading_path,
        "paths": [*folders(chunk.source), chunk.source],
        "language": detect_language(chunk.text),
        "content_hash": chunk.hash,
        "vector_key": chunk.vector_key,
        "doc_id": chunk.document,
        **lifecycle_payload(chunk),
    }


def lifecycle_payload(chunk: Chunk) -> dict[str, str]:
    life = chunk.lifecycle
    stated = {
        "effective": life.effective,
        "expires": life.expires,
        "superseded_by": life.superseded_by,
    }
    return {
        "status": life.status,
        "updated": life.updated,
        **{name: value for name, value in stated.items() if value},
    }


class RowsById:
    """Point id -> row of the index, for the ids of one index's chunks."""

    def __init__(self, ids: IdArray) -> None:
        self.ids = ids
        self._order = np.argsort(ids, kind="stable")
        self._sorted = ids[self._order]

    def rows(self, ids: Sequence[int]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
        """The rows of ``ids`` and which ids are this index's (others: another version's)."""
        wanted = np.asarray(ids, np.uint64)
        at = np.minimum(np.searchsorted(self._sorted, wanted), max(len(self._sorted) - 1, 0))
        known = self._sorted[at] == wanted if len(self._sorted) else np.zeros(len(wanted), np.bool_)
        return self._order[at].astype(np.intp), known


def metadata(embedder: str, dimensions: int, version: str) -> dict[str, Any]:
    return {"format": FORMAT, "embedder": embedder, "dimensions": dimensions, "version": version}
