"""Where a test's passage vectors live: in the process, in Qdrant's local mode, or in a real
Qdrant server when ``QDRANT_URL`` is set (skipped, with the reason, otherwise).

``vector_store`` is parametrised over the three, so a retrieval, scope or freshness test written
once runs against each. Local mode keeps its folder under the test's ``tmp_path``; a server
collection gets a name of its own and is deleted after the test.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from rag.search.vectors import VectorStore

STORES = ["in-process", "qdrant-local", "qdrant-server"]
QDRANT_STORES = ["qdrant-local", "qdrant-server"]


def qdrant_store(kind: str, tmp_path: Path) -> tuple[VectorStore, object]:
    """A store of ``kind`` (``qdrant-local`` / ``qdrant-server``) and its cleanup handle."""
    from rag.qdrant.connection import Connection, QdrantPlace
    from rag.qdrant.store import QdrantStore

    if kind == "qdrant-local":
        place = QdrantPlace("citebot", path=tmp_path / "qdrant")
    else:
        url = os.environ.get("QDRANT_URL")
        if not url:
            pytest.skip("QDRANT_URL is not set: no Qdrant server to run this test against")
        collection = f"citebot-test-{uuid.uuid4().hex[:10]}"
        place = QdrantPlace(collection, url=url, api_key=os.environ.get("QDRANT_API_KEY"))
    connection = Connection(place)
    return QdrantStore(connection), connection


def close_store(handle: object) -> None:
    from rag.qdrant.connection import Connection, release_local

    assert isinstance(handle, Connection)
    if handle.place.path is not None:
        release_local(handle.place.path)
        return
    handle.build_client.delete_collection(handle.place.collection)
    handle.close()


@pytest.fixture(params=STORES)
def vector_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore | None]:
    """``None`` (the in-process default) or a Qdrant store, one per parameter."""
    if request.param == "in-process":
        yield None
        return
    store, handle = qdrant_store(request.param, tmp_path)
    yield store
    close_store(handle)


@pytest.fixture(params=QDRANT_STORES)
def qdrant_vector_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    """Only the Qdrant stores: behaviour the in-process index has no counterpart of."""
    store, handle = qdrant_store(request.param, tmp_path)
    yield store
    close_store(handle)
