"""Where the passages' dense vectors live: the seam between the index and a vector engine.

By default they live in each process, as one row-normalised float32 matrix inside
:class:`rag.search.index.Index`, which computes every passage's cosine at once (unchanged:
``VECTOR_STORE=local``). With ``VECTOR_STORE=qdrant`` they live in a Qdrant collection that
every process queries (:mod:`rag.qdrant`): no process holds a copy. Two small protocols say
what the rest of the code needs from such a place:

- :class:`PassageVectors`, what a search asks — in one round trip, the passages nearest to the
  question among those the asker may see, and the cosines of the passages the lexical search
  ranked best (:mod:`rag.search.candidates` makes the gate's three signals exact for every
  passage that can reach the top k from those two lists);
- :class:`VectorStore`, what a build asks — how many passages lack a vector there, and to store
  the missing ones (embedding only those) and hand back the search side.

:class:`MatrixVectors` is the in-process matrix behind :class:`PassageVectors`: the fake a
test puts where a remote store would be, to compare both ways of searching on the same data.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

from rag.chunks import Chunk
from rag.search.fusion import RowArray, top_positions
from rag.storage.vector_guard import VectorStoreUnavailable

FloatArray = npt.NDArray[np.float32]

OnProgress = Callable[[int, int], None]
"""(embedded so far, to embed in all), as :mod:`rag.search.embedding_run` reports it."""


__all__ = [
    "DenseFound",
    "MatrixVectors",
    "PassageVectors",
    "Stored",
    "VectorStore",
    "VectorStoreUnavailable",
]


@dataclass(frozen=True, slots=True)
class DenseFound:
    """What one dense request returned; rows are positions in the index's chunks."""

    rows: RowArray
    """The nearest passages among those allowed, best first (ties by row)."""
    cosines: FloatArray
    """Their cosines to the question."""
    floor: float
    """No allowed passage outside ``rows`` has a higher cosine; ``-inf`` when ``rows`` holds
    every allowed passage the store has."""
    asked: FloatArray
    """The cosine of each row asked for by name (``also``); NaN where the store holds none."""


class PassageVectors(Protocol):
    """The search side of where vectors live (row ``i`` = the index's chunk ``i``)."""

    def dense(
        self, query: FloatArray, *, nearest: int, rows: RowArray | None, also: RowArray
    ) -> DenseFound:
        """The ``nearest`` rows among ``rows`` (``None``: all) closest to ``query`` (unit
        length), and the cosines of ``also``. Raises :class:`VectorStoreUnavailable`."""
        ...

    def describe(self) -> dict[str, Any]:
        """What ``/healthz`` shows about the store (no secret, no document text)."""
        ...


class VectorStore(Protocol):
    """The build side: the vectors of a corpus, kept between builds and shared by processes."""

    def missing(self, chunks: Sequence[Chunk], version: str) -> int:
        """How many of ``chunks`` have no vector in the store yet (0 when the store already
        holds index ``version`` whole)."""
        ...

    def vectors(
        self,
        chunks: Sequence[Chunk],
        embeddings: Embeddings,
        *,
        embedder: str,
        version: str,
        on_progress: OnProgress | None = None,
    ) -> Stored:
        """Store what ``chunks`` lack (embedding only those, in batches, each kept as soon as
        it is embedded), drop what no chunk needs any more, record ``version`` (of
        ``embedder``'s vectors); the search side over ``chunks``."""
        ...


@dataclass(frozen=True, slots=True)
class Stored:
    """What :meth:`VectorStore.vectors` did, and the search side it hands back."""

    vectors: PassageVectors
    embedded: int
    """Passages embedded by this build."""
    reused: int
    """Passages whose vector the store held already (or found under another passage)."""


class MatrixVectors:
    """:class:`PassageVectors` over a matrix in this process (rows already unit length)."""

    def __init__(self, matrix: FloatArray) -> None:
        self.matrix = np.asarray(matrix, dtype=np.float32)

    def dense(
        self, query: FloatArray, *, nearest: int, rows: RowArray | None, also: RowArray
    ) -> DenseFound:
        scores: FloatArray = self.matrix @ query
        allowed = np.arange(len(scores)) if rows is None else rows
        best = allowed[top_positions(scores[allowed], nearest)]
        floor = -np.inf if len(best) == len(allowed) else float(scores[best[-1]])
        return DenseFound(best, scores[best], floor, scores[also])

    def describe(self) -> dict[str, Any]:
        return {"kind": "in-process", "passages": len(self.matrix)}
