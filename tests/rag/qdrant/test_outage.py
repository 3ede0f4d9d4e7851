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


def test_questions_during_an_outage_are_answered_lexically_with_one_warning(
    qdrant_server: FakeQdrantServer, caplog: pytest.LogCaptureFixture
) -> None:
    clock = [0.0]
    connection = Connection(QdrantPlace("citebot", url=qdrant_server.url))
    connection.guard.breaker._clock = lambda: clock[0]
    index = index_documents(DOCS, embeddings=HashingEmbeddings(), store=QdrantStore(connection))
    assert index.search("annual leave", 1)[0].dense is not None

    qdrant_server.stop()
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            hits = index.search("annual leave", 1)
            assert hits[0].chunk.source == "hr/leave.md"
            assert hits[0].dense is None
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert "Qdrant at http://127.0.0.1" in warnings[0].getMessage()
    assert connection.describe()["state"] == "unreachable"
    asked = len(qdrant_server.requests)

    qdrant_server.start()
    assert index.search("annual leave", 1)[0].dense is None  # still cooling down: not asked
    assert len(qdrant_server.requests) == asked
    clock[0] += 6  # past the cooldown: one question probes, and the store is back
    assert index.search("annual leave", 1)[0].dense is not None
    assert connection.describe()["state"] == "ok"


def test_a_build_while_the_server_is_away_fails_with_the_store_unavailable(
    qdrant_server: FakeQdrantServer,
) -> None:
    connection = Connection(QdrantPlace("citebot", url=qdrant_server.url))
    qdrant_server.stop()
    with pytest.raises(VectorStoreUnavailable):
        index_documents(DOCS, embeddings=HashingEmbeddings(), store=QdrantStore(connection))
