"""Retrieval filtered before ranking: top-k full of allowed passages, nothing else scored."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rag.ingest.documents import SourceDocument
from rag.scopes.globs import compile_glob
from rag.scopes.sets import EVERYTHING, NOTHING, ScopeCatalog
from rag.search.build import index_documents
from rag.search.embeddings import HashingEmbeddings
from rag.search.index import Index
from rag.search.scoped import ScopedRows, allowed_rows
from tests.fakes.qdrant_fixture import close_store, qdrant_store

LEAVE = "Full-time employees receive 20 days of paid annual leave per year."


def docs() -> list[SourceDocument]:
    found = [
        SourceDocument(
            source=f"hr/leave-{n}.md", title="Annual leave", text=f"# Leave {n}\n\n{LEAVE}"
        )
        for n in range(6)
    ]
    found.append(
        SourceDocument(
            source="public/holidays.md",
            title="Public holidays",
            text="# Holidays\n\nThe office is closed on public holidays; leave is not needed.",
        )
    )
    found.append(
        SourceDocument(
            source="public/pricing.md",
            title="Pricing",
            text="# Pricing\n\nThe fluent level costs 4800 yuan for 16 lessons.",
        )
    )
    return found


CATALOG = ScopeCatalog({"public": (compile_glob("public/**"),), "hr": (compile_glob("hr/**"),)})


@pytest.fixture(scope="module", params=["dense", "lexical", "qdrant-local", "qdrant-server"])
def index(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Index]:
    """Dense in this process, lexical, or dense with the vectors in Qdrant, where the scope
    is a filter inside the engine."""
    embeddings = None if request.param == "lexical" else HashingEmbeddings()
    if not request.param.startswith("qdrant"):
        yield index_documents(docs(), embeddings=embeddings)
        return
    store, handle = qdrant_store(request.param, tmp_path_factory.mktemp("qdrant"))
    yield index_documents(docs(), embeddings=embeddings, store=store)
    close_store(handle)


def test_unscoped_search_finds_the_hr_passages_first(index: Index) -> None:
    # by score alone: search() would keep one of the six copies (rag.search.diverse)
    hits = index.ranked("How many days of annual leave?", 3)
    assert all(hit.chunk.source.startswith("hr/") for hit in hits)


def test_top_k_holds_only_allowed_passages(index: Index) -> None:
    rows = allowed_rows(index.chunks, CATALOG.of(["public"]))
    hits = index.search("How many days of annual leave?", 5, rows=rows)
    assert [hit.chunk.source for hit in hits][:1] == ["public/holidays.md"]
    assert {hit.chunk.source for hit in hits} == {"public/holidays.md", "public/pricing.md"}
    assert [hit.rank for hit in hits] == [1, 2]


def test_an_allowed_passage_scores_the_same_whichever_scope_asks(index: Index) -> None:
    question = "What does the fluent level cost?"
    everyone = {h.chunk.id: h.score for h in index.search(question, len(index))}
    public = index.search(question, 5, rows=allowed_rows(index.chunks, CATALOG.of(["public"])))
    assert all(everyone[hit.chunk.id] == pytest.approx(hit.score) for hit in public)


def test_an_empty_scope_finds_nothing(index: Index) -> None:
    assert index.search("annual leave", 5, rows=allowed_rows(index.chunks, NOTHING)) == []


def test_rows_are_computed_once_per_index_version_and_scope(index: Index) -> None:
    calls: list[str] = []

    class Counting:
        key = "hr@counting"
        unrestricted = False

        def allows(self, source: str) -> bool:
            calls.append(source)
            return source.startswith("hr/")

    rows = ScopedRows()
    first = rows.rows(index.version, index.chunks, Counting())  # type: ignore[arg-type]
    again = rows.rows(index.version, index.chunks, Counting())  # type: ignore[arg-type]
    assert first is again
    assert len(calls) == len({chunk.source for chunk in index.chunks})  # once per document
    assert rows.rows(index.version, index.chunks, EVERYTHING) is None
    rows.rows("another-version", index.chunks, Counting())  # type: ignore[arg-type]
    assert len(calls) == 2 * len({chunk.source for chunk in index.chunks})


def test_the_row_cache_is_bounded() -> None:
    rows = ScopedRows(max_sets=2)
    chunks = index_documents(docs(), embeddings=None).chunks
    sets = [CATALOG.of(["hr"]), CATALOG.of(["public"]), CATALOG.of(["hr", "public"])]
    kept = [rows.rows("v", chunks, scope) for scope in sets]
    assert rows.rows("v", chunks, sets[2]) is kept[2]
    assert rows.rows("v", chunks, sets[0]) is not kept[0]  # evicted, computed again
