"""Scopes as filters inside Qdrant: exact, short, and never starving the top k."""

from __future__ import annotations

import numpy as np

from rag.ingest.documents import SourceDocument
from rag.qdrant.scope_filter import compressed
from rag.search.build import index_documents
from rag.search.dense import normalised
from rag.search.embeddings import HashingEmbeddings
from rag.search.vectors import VectorStore

DOCUMENTS = ["hr/a.md", "hr/b.md", "hr/pay/c.md", "public/d.md", "public/e.md", "top.md"]


def test_a_folder_whose_documents_are_all_allowed_is_one_condition() -> None:
    assert compressed({"hr/a.md", "hr/b.md", "hr/pay/c.md"}, DOCUMENTS) == ["hr/"]
    assert compressed({"hr/a.md", "hr/pay/c.md"}, DOCUMENTS) == ["hr/a.md", "hr/pay/"]
    assert compressed({"top.md", "public/d.md"}, DOCUMENTS) == ["public/d.md", "top.md"]


def test_the_nearest_allowed_passages_come_back_even_when_others_are_nearer(
    qdrant_vector_store: VectorStore,
) -> None:
    # Twenty public passages say exactly what is asked; two HR passages only half of it.
    question = "office parking badge"
    docs = [
        SourceDocument(source=f"public/p{n}.md", title="Parking", text=f"# P{n}\n\n{question}")
        for n in range(20)
    ] + [
        SourceDocument(source=f"hr/h{n}.md", title="Badge", text=f"# H{n}\n\nbadge rules {n}")
        for n in range(2)
    ]
    embeddings = HashingEmbeddings()
    index = index_documents(docs, embeddings=embeddings, store=qdrant_vector_store)
    assert index.store is not None
    rows = np.asarray(
        [row for row, chunk in enumerate(index.chunks) if chunk.source.startswith("hr/")], np.intp
    )
    query = normalised(embeddings.embed_query(question))[0]
    found = index.store.dense(query, nearest=2, rows=rows, also=rows[:0])
    assert sorted(found.rows.tolist()) == rows.tolist()  # filtered inside: not starved to none
    unscoped = index.store.dense(query, nearest=2, rows=None, also=rows[:0])
    assert not set(unscoped.rows.tolist()) & set(rows.tolist())  # the public ones are nearer
