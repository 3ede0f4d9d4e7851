"""Dense evidence before the vectors exist: a question's lexical candidates embedded on demand.

A bot on a new folder answers within seconds from its lexical index while the backfill embeds
every passage (20–30 minutes for 36k passages). Lexical similarity alone cannot tell a passage
that answers from one that only shares the question's words: in that phase 78 % of ClapNQ's
near misses were answered, ``公司的 CEO 是谁？`` quoted the leave rule, and a configured model was
called for every out-of-scope question. So each question's best :data:`CANDIDATES` lexical
passages are embedded now (those not embedded yet: a second or less for a question, nothing
for passages embedded before), and the gate weighs them as in full mode: dense cosine, and its
standing against the question's background once :data:`BACKGROUND` sample passages have
vectors (the backfill embeds that sample first: :func:`background_rows`).

The vectors are kept: handed to the backfill's cache (:func:`rag.search.embeddings.deposit`)
so no passage is embedded twice.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

from rag.chunks import Chunk
from rag.search.signals import Matrix, RowArray, Signals
from rag.search.standing import eligible, standing
from rag.search.vector_handoff import Holder, deposit, lookup

CANDIDATES = 16
"""Lexical candidates embedded for a question: the answer is among the first 16 lexical hits
for 97–100 % of the answerable tuning questions whose answer is in the top 50."""
BACKGROUND = 128
"""Passages whose vectors form the background of the standing (a fixed sample, embedded first)."""


def background_rows(count: int, size: int = BACKGROUND) -> npt.NDArray[np.intp]:
    """A fixed, evenly spread sample of ``size`` rows of ``count``: the same in every process
    and every run, so the backfill can embed it first."""
    if count <= size:
        return np.arange(count, dtype=np.intp)
    return np.unique(np.linspace(0, count - 1, size).round().astype(np.intp))


class OnDemand:
    """Vectors of a lexical index's passages, embedded when a question needs them."""

    def __init__(
        self,
        chunks: Sequence[Chunk],
        embeddings: Embeddings,
        cache_path: Path | None,
        stored: Holder | None = None,
    ) -> None:
        """``cache_path``: the file of the backfill's cache (the vectors it has are read from
        it while it runs, and the ones embedded here handed to it; ``None``: no backfill, as
        while a vector store is down); ``stored``: that file as
        it was read (kept open, so what an earlier run embedded is not embedded again)."""
        self._stored = stored
        self.embeddings = embeddings
        self._keys = [chunk.vector_key for chunk in chunks]
        self._texts = [chunk.dense_text for chunk in chunks]
        self._vectors: dict[str, npt.NDArray[np.float32]] = {}
        self._cache_path = cache_path
        self._background = background_rows(len(chunks))
        self._lock = threading.Lock()

    def _look_up(self, keys: Sequence[str]) -> list[str]:
        """Takes what the backfill embedded of ``keys``; the keys still without a vector."""
        with self._lock:
            wanted = list(dict.fromkeys(k for k in keys if k not in self._vectors))
        found = lookup(self._cache_path, wanted) if wanted and self._cache_path else {}
        with self._lock:
            self._vectors.update({key: _unit(vector) for key, vector in found.items()})
        return [key for key in wanted if key not in found]

    def vectors(self, rows: Sequence[int]) -> Matrix:
        """Unit vectors of ``rows``, the missing ones embedded now (and handed over)."""
        keys = [self._keys[row] for row in rows]
        missing = self._look_up(keys)
        if missing:
            text_of = {self._keys[row]: self._texts[row] for row in rows}
            fresh = self.embeddings.embed_documents([text_of[key] for key in missing])
            made = {key: np.asarray(v, np.float32) for key, v in zip(missing, fresh, strict=True)}
            with self._lock:
                self._vectors.update({key: _unit(vector) for key, vector in made.items()})
            if self._cache_path is not None:
                deposit(self._cache_path, made)
        with self._lock:
            return np.stack([self._vectors[key] for key in keys]).astype(np.float32)

    def embed_background(self) -> None:
        """Embed the background sample now (no backfill will: a vector store is down)."""
        self.vectors([int(row) for row in self._background])

    def known(self) -> int:
        """Passages with a vector in this process."""
        with self._lock:
            return len(self._vectors)

    def with_dense(
        self, question: str, signals: Signals, rows: RowArray, chinese: npt.NDArray[np.bool_]
    ) -> Signals:
        """``signals`` of ``rows`` (their positions in order) with the dense cosine and its
        standing of the best :data:`CANDIDATES` lexical rows; NaN for the others, which the
        gate then ranks below every candidate."""
        from rag.search.fusion import top_positions  # fusion imports nothing of ours

        positions = top_positions(signals.lexical.bm25, CANDIDATES, positive_only=True)
        if not len(positions):
            return signals
        query = _unit(np.asarray(self.embeddings.embed_query(question), np.float32))
        chosen = [int(rows[p]) for p in positions]
        dense = np.full(len(rows), np.nan, np.float32)
        dense[positions] = self.vectors(chosen) @ query
        stood = np.full(len(rows), np.nan, np.float32)
        background = self._background_cosines(query)
        if background is not None:
            cosines, known = background
            both = np.concatenate([cosines, dense[positions]])
            languages = np.concatenate([chinese[self._background], chinese[chosen]])
            mask = np.concatenate([known, np.zeros(len(positions), np.bool_)])
            corpus = eligible(chinese)
            stood[positions] = standing(both, languages, mask, corpus)[len(cosines) :]
        return Signals(signals.lexical, dense, stood, signals.crossed)

    def _background_cosines(self, query: Matrix) -> tuple[Matrix, npt.NDArray[np.bool_]] | None:
        """The question's cosines to the background sample rows that have a vector."""
        keys = [self._keys[row] for row in self._background]
        self._look_up(keys)
        with self._lock:
            known = np.fromiter((k in self._vectors for k in keys), np.bool_, len(keys))
            if not known.any():
                return None
            dim = len(query)
            matrix = np.stack([self._vectors.get(k, np.zeros(dim, np.float32)) for k in keys])
        return (matrix @ query).astype(np.float32), known


def _unit(vector: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector
