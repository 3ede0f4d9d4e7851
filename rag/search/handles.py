"""Two handles on one embedder: questions at the asker's priority, a rebuild's passages at the
lowest (:class:`SeparateIndexing`), and which of them embeds what an asker waits for."""

from __future__ import annotations

from langchain_core.embeddings import Embeddings

from rag.search.embeddings import E5Embeddings, embedder_identity
from rag.search.priority import low_priority_thread


class SeparateIndexing(Embeddings):
    """Queries on one embedder, indexing on another handle of the same model (same identity,
    so the same vectors and cache) on a thread of its own at the lowest CPU priority
    (:mod:`rag.search.priority`): a question never waits for a rebuild's batch to finish, and
    its query embedding gets the cores first.

    (The bundled e5 once serialised calls on a handle, so a rebuild's batch held every dense
    query for seconds; its numpy engine does not, but the priority still matters.) Only the
    embedding is lowered, not the rebuild's Python work: a low-priority thread holding
    Python's GIL would make the questions wait for it in turn.
    """

    def __init__(self, queries: Embeddings, documents: Embeddings) -> None:
        self.queries = queries
        self.documents = documents
        self.identity = embedder_identity(queries)
        self._thread = low_priority_thread("citebot-embed-documents")

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._thread.submit(self.documents.embed_documents, texts).result()

    def embed_documents_now(self, texts: list[str]) -> list[list[float]]:
        """A few passages a question needs now (e.g. lexical candidates without a vector
        yet): on the calling thread, at its priority, not queued behind a backfill's batch.
        The same vectors as :meth:`embed_documents`."""
        return self.queries.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.queries.embed_query(text)


def for_indexing(embeddings: Embeddings) -> Embeddings:
    """``embeddings`` with indexing on a low-priority thread of its own (the bundled e5: a
    second handle, sharing the model's arrays with the first)."""
    if isinstance(embeddings, E5Embeddings):
        twin = type(embeddings)(threads=embeddings.threads, engine=embeddings.engine)
        return SeparateIndexing(embeddings, twin)
    return embeddings


def for_questions(embeddings: Embeddings) -> Embeddings:
    """The handle that embeds what a waiting asker needs (not a rebuild's low-priority one)."""
    return embeddings.queries if isinstance(embeddings, SeparateIndexing) else embeddings
