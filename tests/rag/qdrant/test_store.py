"""The collection follows the documents: only changes are sent, what is gone is deleted, a
collection of another embedder is refused with a clear reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rag.ingest.documents import SourceDocument
from rag.qdrant.store import CollectionMismatch, QdrantStore
from rag.search.build import index_documents, load_or_build
from rag.search.embeddings import HashingEmbeddings
from rag.search.vectors import VectorStore


class Counting(HashingEmbeddings):
    def __init__(self, dim: int = 256) -> None:
        super().__init__(dim)
        self.embedded = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += len(texts)
        return super().embed_documents(texts)


def write(folder: Path, name: str, text: str) -> None:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def points(store: VectorStore) -> int:
    assert isinstance(store, QdrantStore)
    client = store.connection.build_client
    return client.count(store.collection).count


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    write(folder, "hr/leave.md", "# Leave\n\nEmployees get 20 days of annual leave.\n")
    write(folder, "pricing.md", "# Pricing\n\nThe fluent level costs 4800 yuan.\n")
    write(folder, "it/vpn.md", "# VPN\n\nReset your VPN password at the help desk.\n")
    return folder


def test_removed_and_shrunk_documents_leave_the_collection(
    docs: Path, tmp_path: Path, qdrant_vector_store: VectorStore
) -> None:
    index, _ = load_or_build(
        docs, tmp_path / "index", embeddings=Counting(), vector_store=qdrant_vector_store
    )
    assert points(qdrant_vector_store) == len(index)
    (docs / "it/vpn.md").unlink()
    write(docs, "pricing.md", "# Pricing\n\nThe fluent level costs 5200 yuan.\n")
    embedder = Counting()
    after, report = load_or_build(
        docs, tmp_path / "index", embeddings=embedder, vector_store=qdrant_vector_store
    )
    assert points(qdrant_vector_store) == len(after) == len(index) - 1
    assert embedder.embedded == report.embedded == 1  # only the changed passage
    hits = after.search("How much is the fluent level?", 1)
    assert "5200" in hits[0].chunk.text


def test_a_renamed_document_reuses_its_vectors(
    docs: Path, tmp_path: Path, qdrant_vector_store: VectorStore
) -> None:
    load_or_build(docs, tmp_path / "index", embeddings=Counting(), vector_store=qdrant_vector_store)
    shutil.move(docs / "hr/leave.md", docs / "hr/annual-leave.md")
    embedder = Counting()
    after, _ = load_or_build(
        docs, tmp_path / "index", embeddings=embedder, vector_store=qdrant_vector_store
    )
    assert embedder.embedded == 0
    assert points(qdrant_vector_store) == len(after)
    assert after.search("annual leave days", 1)[0].chunk.source == "hr/annual-leave.md"


def test_a_collection_of_another_embedder_is_refused_not_mixed(
    qdrant_vector_store: VectorStore,
) -> None:
    doc = SourceDocument(source="a.md", title="A", text="# A\n\nSome text to embed.")
    index_documents([doc], embeddings=HashingEmbeddings(256), store=qdrant_vector_store)
    with pytest.raises(CollectionMismatch, match="QDRANT_COLLECTION"):
        index_documents([doc], embeddings=HashingEmbeddings(128), store=qdrant_vector_store)


def test_switching_an_embedded_folder_to_qdrant_sends_its_vectors_without_embedding(
    docs: Path, tmp_path: Path, qdrant_vector_store: VectorStore
) -> None:
    local, _ = load_or_build(docs, tmp_path / "index", embeddings=Counting())
    embedder = Counting()
    moved, report = load_or_build(
        docs, tmp_path / "index", embeddings=embedder, vector_store=qdrant_vector_store
    )
    assert embedder.embedded == report.embedded == 0
    assert points(qdrant_vector_store) == len(moved)
    question = "How many days of annual leave?"
    assert [(h.chunk.id, round(h.score, 5)) for h in moved.search(question, 3)] == [
        (h.chunk.id, round(h.score, 5)) for h in local.search(question, 3)
    ]


def test_a_page_marked_superseded_is_written_again_with_its_status_and_vectors_reused(
    docs: Path, tmp_path: Path, qdrant_vector_store: VectorStore
) -> None:
    load_or_build(docs, tmp_path / "index", embeddings=Counting(), vector_store=qdrant_vector_store)
    write(
        docs,
        "hr/leave.md",
        "---\nstatus: superseded\nupdated: 2024-01-05\n---\n"
        "# Leave\n\nEmployees get 20 days of annual leave.\n",
    )
    embedder = Counting()
    after, _ = load_or_build(
        docs, tmp_path / "index", embeddings=embedder, vector_store=qdrant_vector_store
    )
    assert isinstance(qdrant_vector_store, QdrantStore)
    client = qdrant_vector_store.connection.build_client
    records, _ = client.scroll(qdrant_vector_store.collection, limit=100, with_payload=True)
    by_source = {str(r.payload["source"]): r.payload for r in records if r.payload}
    assert by_source["hr/leave.md"]["status"] == "superseded"
    assert by_source["hr/leave.md"]["updated"] == "2024-01-05"
    assert by_source["pricing.md"]["status"] == "current"
    assert points(qdrant_vector_store) == len(after)  # the old point is gone
    assert embedder.embedded == 0  # the same words: its vector is reused
