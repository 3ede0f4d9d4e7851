"""The build side of a Qdrant collection: bring it to one index's passages, sending only changes.

:meth:`QdrantStore.vectors` (the :class:`~rag.search.vectors.VectorStore` protocol):

1. the collection already holds this index version whole (its metadata says so) -> nothing to
   send: a restart, or a process loading what another one built, costs one request;
2. else the passages' point ids (:func:`rag.qdrant.points.point_ids`) are looked up; a missing
   passage whose embedded text is already stored under another point (a renamed file) takes
   that vector, the rest are embedded in batches, each batch upserted as soon as it is embedded
   (a stopped build keeps it: the collection is the embedding cache);
3. points no passage has any more are deleted: per source, by a facet of the points' sources —
   a source the folder no longer has goes whole, one whose point count differs loses the points
   not among its passages (its new ones are already in);
4. the metadata records the version (``syncing:<version>`` meanwhile).

Several processes may run this on one collection (each on its own copy of the documents): ids
are content hashes, so the same passage is one point whoever writes it. The collection follows
the folder of whoever rebuilt last; processes should read the same documents (guide/qdrant.md).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.embeddings import Embeddings
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ApiException

from rag.chunks import Chunk
from rag.qdrant.connection import Connection
from rag.qdrant.points import FORMAT, IdArray, metadata, payload, point_ids
from rag.qdrant.search import QdrantVectors
from rag.search.vectors import OnProgress, Stored
from rag.settings import SettingsError

logger = logging.getLogger(__name__)

BATCH = 32
"""Passages embedded and upserted per request: a stop loses at most one batch."""
LOOKUP = 1000
"""Ids per existence lookup and vector keys per reuse lookup."""


class CollectionMismatch(SettingsError):
    """The collection holds vectors of another embedder or layout: using it would mix spaces.
    A setting to change (QDRANT_COLLECTION), so it stops a starting bot with one line."""


class QdrantStore:
    """:class:`~rag.search.vectors.VectorStore` over one collection."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.collection = connection.place.collection

    def _run(self, call: Any) -> Any:
        return self.connection.run(call, building=True)

    def _metadata(self) -> dict[str, Any] | None:
        """The collection's metadata; ``None`` when there is no collection yet."""

        def read(client: QdrantClient) -> dict[str, Any] | None:
            if not client.collection_exists(self.collection):
                return None
            return dict(client.get_collection(self.collection).config.metadata or {})

        found: dict[str, Any] | None = self._run(read)
        return found

    def missing(self, chunks: Sequence[Chunk], version: str) -> int:
        stored = self._metadata()
        if stored is None:
            return len(chunks)
        if stored.get("version") == version:
            return 0
        ids = point_ids(chunks)
        return len(ids) - len(self._present(ids))

    def vectors(
        self,
        chunks: Sequence[Chunk],
        embeddings: Embeddings,
        *,
        embedder: str,
        version: str,
        on_progress: OnProgress | None = None,
    ) -> Stored:
        ids = point_ids(chunks)
        search = QdrantVectors(self.connection, ids, [chunk.source for chunk in chunks])
        stored = self._metadata()
        if stored is not None:
            self._check(stored, embedder)
            if stored.get("version") == version:
                return Stored(search, embedded=0, reused=len(chunks))
            self._record({"version": f"syncing:{version}"})
        present = set() if stored is None else self._present(ids)
        todo = [row for row in range(len(chunks)) if int(ids[row]) not in present]
        reusable = {} if stored is None or not todo else self._reusable(chunks, todo)
        embedded = self._fill(chunks, ids, todo, reusable, embeddings, embedder, on_progress)
        if stored is not None or todo:
            self._prune(chunks, ids)
            self._record({"version": version, "embedder": embedder, "format": FORMAT})
        if todo:
            logger.info(
                "Qdrant collection %s: %d passages sent (%d embedded), %d kept",
                self.collection,
                len(todo),
                embedded,
                len(chunks) - len(todo),
            )
        return Stored(search, embedded=embedded, reused=len(chunks) - embedded)

    def _check(self, stored: dict[str, Any], embedder: str) -> None:
        if stored.get("format") not in {None, FORMAT} or stored.get("embedder") not in {
            None,
            embedder,
        }:
            msg = (
                f"Qdrant collection {self.collection!r} holds vectors of "
                f"{stored.get('embedder')!r} (format {stored.get('format')}), not of {embedder!r};"
                " set QDRANT_COLLECTION to another name (or delete that collection)"
            )
            raise CollectionMismatch(msg)

    def _present(self, ids: IdArray) -> set[int]:
        present: set[int] = set()
        for start in range(0, len(ids), LOOKUP):
            batch = [int(i) for i in ids[start : start + LOOKUP]]

            def look(client: QdrantClient, batch: list[int] = batch) -> list[models.Record]:
                return client.retrieve(
                    self.collection, batch, with_payload=False, with_vectors=False
                )

            present.update(int(record.id) for record in self._run(look))
        return present

    def _fill(
        self,
        chunks: Sequence[Chunk],
        ids: IdArray,
        todo: list[int],
        reusable: dict[str, list[float]],
        embeddings: Embeddings,
        embedder: str,
        on_progress: OnProgress | None,
    ) -> int:
        """Upsert the points of rows ``todo`` (with the ``reusable`` vectors of their embedded
        texts where stored); returns how many were embedded."""
        fresh = [row for row in todo if chunks[row].vector_key not in reusable]
        if on_progress is not None:
            on_progress(0, len(fresh))
        taken = [row for row in todo if chunks[row].vector_key in reusable]
        for start in range(0, len(taken), BATCH):
            rows = taken[start : start + BATCH]
            vectors = [reusable[chunks[row].vector_key] for row in rows]
            self._upsert(chunks, ids, rows, vectors, embedder)
        for start in range(0, len(fresh), BATCH):
            rows = fresh[start : start + BATCH]
            vectors = embeddings.embed_documents([chunks[row].dense_text for row in rows])
            self._upsert(chunks, ids, rows, vectors, embedder)
            if on_progress is not None:
                on_progress(start + len(rows), len(fresh))
        return len(fresh)

    def _reusable(self, chunks: Sequence[Chunk], todo: list[int]) -> dict[str, list[float]]:
        """Vectors already stored for the embedded texts of rows ``todo`` (under other
        points: a renamed or copied file)."""
        found: dict[str, list[float]] = {}
        unique = list(dict.fromkeys(chunks[row].vector_key for row in todo))
        for start in range(0, len(unique), LOOKUP):
            batch = unique[start : start + LOOKUP]
            match = models.FieldCondition(key="vector_key", match=models.MatchAny(any=batch))

            def scroll(client: QdrantClient, match: models.FieldCondition = match) -> Any:
                return client.scroll(
                    self.collection,
                    scroll_filter=models.Filter(must=[match]),
                    limit=LOOKUP * 4,
                    with_payload=["vector_key"],
                    with_vectors=True,
                )

            records, _ = self._run(scroll)
            for record in records:
                if isinstance(record.vector, list) and record.payload:
                    found[str(record.payload["vector_key"])] = [float(x) for x in record.vector]
        return found

    def _upsert(
        self,
        chunks: Sequence[Chunk],
        ids: IdArray,
        rows: list[int],
        vectors: Sequence[Sequence[float]],
        embedder: str,
    ) -> None:
        self._ensure(len(vectors[0]), embedder)
        points = [
            models.PointStruct(id=int(ids[row]), vector=list(vector), payload=payload(chunks[row]))
            for row, vector in zip(rows, vectors, strict=True)
        ]
        self._run(lambda client: client.upsert(self.collection, points, wait=True))

    def _ensure(self, dimensions: int, embedder: str) -> None:
        """Create the collection (cosine distance, keyword indexes on the filtered fields)
        when it does not exist; an operator may create it beforehand with their own
        sharding, replication and quantization (guide/qdrant.md)."""

        def create(client: QdrantClient) -> None:
            if client.collection_exists(self.collection):
                return
            try:
                client.create_collection(
                    self.collection,
                    vectors_config=models.VectorParams(
                        size=dimensions, distance=models.Distance.COSINE
                    ),
                    metadata=metadata(embedder, dimensions, "syncing:"),
                )
            except ApiException:
                if client.collection_exists(self.collection):
                    return  # another process created it meanwhile
                raise
            if not self.connection.local:  # local mode has no payload indexes (and says so)
                for field in ("source", "paths", "vector_key"):
                    client.create_payload_index(
                        self.collection, field, models.PayloadSchemaType.KEYWORD
                    )

        self._run(create)

    def _prune(self, chunks: Sequence[Chunk], ids: IdArray) -> None:
        """Delete the points no passage of ``chunks`` has (module docstring, step 3)."""
        by_source: dict[str, list[models.ExtendedPointId]] = {}
        for chunk, point in zip(chunks, ids.tolist(), strict=True):
            by_source.setdefault(chunk.source, []).append(int(point))

        def sources(client: QdrantClient) -> models.FacetResponse:
            return client.facet(
                self.collection, "source", limit=len(by_source) + 10_000, exact=True
            )

        for hit in self._run(sources).hits:
            source = str(hit.value)
            kept = by_source.get(source)
            if kept is not None and hit.count == len(kept):
                continue
            condition = models.FieldCondition(key="source", match=models.MatchValue(value=source))
            drop = models.Filter(
                must=[condition],
                must_not=[models.HasIdCondition(has_id=kept)] if kept else None,
            )
            self._run(lambda client, drop=drop: client.delete(self.collection, drop, wait=True))

    def _record(self, fields: dict[str, Any]) -> None:
        self._run(lambda client: client.update_collection(self.collection, metadata=fields))
