"""A Qdrant server that goes away: lexical answers, one warning per outage, back when it is."""

from __future__ import annotations

import logging

import pytest

from rag.ingest.documents import SourceDocument
from rag.qdrant.connection import Connection, QdrantPlace
from rag.qdrant.store import QdrantStore
from rag.search.build import index_documents
from rag.search.embeddings import HashingEmbeddings
from rag.search.vectors import VectorStoreUnavailable
from tests.fakes.qdrant_server import FakeQdrantServer

DOCS = [
    SourceDocument(source="hr/leave.md", title="Leave", text="# Leave\n\n20 days of annual leave."),
    SourceDocument(source="pricing.md", title="Pricing", text="# Pricing\n\nFluent costs 4800."),
]


def test_questions_during_an_outage_are_weighed_as_before_from_passages_embedded_here(
    qdrant_server: FakeQdrantServer, caplog: pytest.LogCaptureFixture
) -> None:
    clock = [0.0]
    connection = Connection(QdrantPlace("citebot", url=qdrant_server.url))
    connection.guard.breaker._clock = lambda: clock[0]
    index = index_documents(DOCS, embeddings=HashingEmbeddings(), store=QdrantStore(connection))
    served = index.search("annual leave", 1)[0]
    assert served.dense is not None

    qdrant_server.stop()
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            hits = index.search("annual leave", 1)
            assert hits[0].chunk.source == "hr/leave.md"
            # The candidates are embedded here: the gate weighs them as the store's vectors.
            assert hits[0].dense == pytest.approx(served.dense, abs=1e-5)
            assert hits[0].score == pytest.approx(served.score, abs=1e-4)
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert "Qdrant at http://127.0.0.1" in warnings[0].getMessage()
    assert connection.describe()["state"] == "unreachable"
    asked = len(qdrant_server.requests)

    qdrant_server.start()
    index.search("annual leave", 1)  # still cooling down: the store is not asked
    assert len(qdrant_server.requests) == asked
    clock[0] += 6  # past the cooldown: one question probes, and the store is back
    assert index.search("annual leave", 1)[0].dense == pytest.approx(served.dense, abs=1e-5)
    assert len(qdrant_server.requests) > asked
    assert connection.describe()["state"] == "ok"


def test_a_build_while_the_server_is_away_fails_with_the_store_unavailable(
    qdrant_server: FakeQdrantServer,
) -> None:
    connection = Connection(QdrantPlace("citebot", url=qdrant_server.url))
    qdrant_server.stop()
    with pytest.raises(VectorStoreUnavailable):
        index_documents(DOCS, embeddings=HashingEmbeddings(), store=QdrantStore(connection))
