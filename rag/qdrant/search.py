"""The search side of a Qdrant collection, for one index's passages.

:class:`QdrantVectors` answers :meth:`~rag.search.vectors.PassageVectors.dense` with one
``query_batch_points`` request: the nearest points under the asker's scope filter
(:mod:`rag.qdrant.scope_filter`), and the cosines of the passages the lexical search ranked
best (a ``has_id`` filter, which Qdrant answers exactly from its payload index of ids). Ids map
back to this index's rows (:class:`~rag.qdrant.points.RowsById`); a point of another index
version (another process re-indexed a moment ago) maps to none and is passed over. The process
keeps the ids and each row's source, never a vector.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from qdrant_client import QdrantClient, models

from rag.qdrant.connection import Connection
from rag.qdrant.points import IdArray, RowsById
from rag.qdrant.scope_filter import ScopeFilters
from rag.search.fusion import RowArray
from rag.search.vectors import DenseFound, FloatArray


class QdrantVectors:
    """:class:`~rag.search.vectors.PassageVectors` over a collection (row ``i`` = point
    ``ids[i]``, whose source is ``sources[i]``)."""

    def __init__(self, connection: Connection, ids: IdArray, sources: Sequence[str]) -> None:
        self.connection = connection
        self.collection = connection.place.collection
        self.ids = ids
        self._rows = RowsById(ids)
        self._filters = ScopeFilters(sources)

    def dense(
        self, query: FloatArray, *, nearest: int, rows: RowArray | None, also: RowArray
    ) -> DenseFound:
        vector = query.tolist()
        scope = None if rows is None else self._filters.of(rows)
        requests = [
            models.QueryRequest(query=vector, limit=nearest, filter=scope, with_payload=False)
        ]
        if len(also):
            named = models.HasIdCondition(has_id=[int(i) for i in self.ids[also]])
            requests.append(
                models.QueryRequest(
                    query=vector,
                    limit=len(also),
                    filter=models.Filter(must=[named]),
                    with_payload=False,
                )
            )

        def ask(client: QdrantClient) -> list[models.QueryResponse]:
            return client.query_batch_points(self.collection, requests)

        responses = self.connection.run(ask)
        near = responses[0].points
        found, cosines = self._known(near)
        floor = float(near[-1].score) if len(near) == nearest else -np.inf
        asked = np.full(len(also), np.nan, np.float32)
        if len(also):
            by_row, score = self._known(responses[1].points)
            cosine_of = dict(zip(by_row.tolist(), score.tolist(), strict=True))
            asked[:] = [cosine_of.get(row, np.nan) for row in also.tolist()]
        return DenseFound(found, cosines, floor, asked)

    def _known(self, points: Sequence[models.ScoredPoint]) -> tuple[RowArray, FloatArray]:
        """Rows and cosines of the points this index holds, in the order given."""
        rows, known = self._rows.rows([int(point.id) for point in points])
        cosines = np.asarray([point.score for point in points], np.float32)
        return rows[known], cosines[known]

    def describe(self) -> dict[str, Any]:
        return self.connection.describe() | {"passages": len(self.ids)}
