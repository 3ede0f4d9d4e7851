"""Search with the vectors in a store: the same top k, scores and cosines as in-process, from
two short lists; lexical answers when the store is away."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from rag.ingest.documents import SourceDocument
from rag.scopes.globs import compile_glob
from rag.scopes.sets import ScopeCatalog
from rag.search import candidates
from rag.search.build import index_documents
from rag.search.embeddings import HashingEmbeddings
from rag.search.fusion import RowArray
from rag.search.gate import EQUAL, LEXICAL_ONLY, Weights
from rag.search.index import Index
from rag.search.lexical import LexicalScores
from rag.search.scoped import allowed_rows
from rag.search.vectors import DenseFound, FloatArray, MatrixVectors, VectorStoreUnavailable

WORDS = [
    *("leave", "pay", "refund", "holiday", "office", "salary", "course", "level", "lesson"),
    *("price", "yuan", "fluent", "annual", "policy", "travel", "meal", "expense", "claim"),
    *("laptop", "password", "vpn", "badge", "parking", "visa", "contract"),
]
QUESTIONS = [
    "How many days of annual leave?",
    "refund price of the fluent level",
    "travel meal expense claim",
    "vpn password reset",
    "parking badge for visitors",
    "contract visa salary",
    "holiday office closed",
    "laptop lesson course",
]
HR = ScopeCatalog({"hr": (compile_glob("hr/**"),)}).of(["hr"])


def corpus() -> list[SourceDocument]:
    pick = random.Random(7)
    return [
        SourceDocument(
            source=f"{pick.choice(['hr', 'public', 'eng'])}/doc-{n}.md",
            title=f"Doc {n}",
            text=f"# Doc {n}\n\n" + " ".join(pick.choice(WORDS) for _ in range(120)),
        )
        for n in range(80)
    ]


class Counting(MatrixVectors):
    """The in-process matrix behind the protocol, counting what it is asked."""

    def __init__(self, matrix: FloatArray) -> None:
        super().__init__(matrix)
        self.depths: list[int] = []

    def dense(
        self, query: FloatArray, *, nearest: int, rows: RowArray | None, also: RowArray
    ) -> DenseFound:
        self.depths.append(nearest)
        return super().dense(query, nearest=nearest, rows=rows, also=also)


def stored_beside(index: Index, store: object) -> Index:
    return Index(
        index.chunks,
        vectors=store,  # type: ignore[arg-type]
        embeddings=index.embeddings,
        version=index.version,
        gate=index.gate,
    )


@pytest.fixture(scope="module")
def in_process() -> Index:
    return index_documents(corpus(), embeddings=HashingEmbeddings())


@pytest.mark.parametrize(
    "ranking",
    [EQUAL, Weights(coverage=0.5, cosine=0.0, dense=1.0, standing=0.0), Weights(1, 0.5, 2, 0)],
    ids=["by the gate", "coverage and dense", "weighted"],
)
def test_short_lists_give_exactly_the_in_process_top_k(
    in_process: Index, monkeypatch: pytest.MonkeyPatch, ranking: Weights
) -> None:
    # Lists of 3 over 250 passages: the bound often fails and the lists must grow.
    monkeypatch.setattr(candidates, "DEFAULT_DEPTH", 3)
    in_process = in_process.regated(replace(in_process.gate, ranking=ranking))
    store = Counting(in_process._vectors)  # type: ignore[arg-type]
    remote = stored_beside(in_process, store)
    rows = allowed_rows(in_process.chunks, HR)
    for question in QUESTIONS:
        for scope in (None, rows):
            want = in_process.search(question, 5, rows=scope)
            got = remote.search(question, 5, rows=scope)
            assert [h.chunk.id for h in got] == [h.chunk.id for h in want], question
            assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-5)
            assert [h.dense for h in got] == pytest.approx([h.dense for h in want], abs=1e-5)
    assert max(store.depths) > 5, "the bound never made the lists grow: the test proves nothing"


def test_the_top_k_never_holds_a_passage_outside_the_scope(in_process: Index) -> None:
    remote = stored_beside(in_process, MatrixVectors(in_process._vectors))  # type: ignore[arg-type]
    rows = allowed_rows(in_process.chunks, HR)
    for question in QUESTIONS:
        hits = remote.search(question, 5, rows=rows)
        assert len(hits) == 5
        assert all(hit.chunk.source.startswith("hr/") for hit in hits)


class Away:
    def dense(
        self, query: FloatArray, *, nearest: int, rows: RowArray | None, also: RowArray
    ) -> DenseFound:
        raise VectorStoreUnavailable

    def describe(self) -> dict[str, str]:
        return {"kind": "away"}


def test_with_the_store_away_the_lexical_candidates_are_embedded_and_weighed_as_in_process(
    in_process: Index,
) -> None:
    remote = stored_beside(in_process, Away())
    for question in QUESTIONS:
        hits = remote.search(question, 5)
        assert hits
        assert all(hit.dense is not None for hit in hits)  # embedded here, not missing
        everything = {h.chunk.id: h for h in in_process.search(question, len(in_process))}
        for hit in hits:
            # The same gate over the same vectors: the in-process index's own scores.
            assert hit.dense == pytest.approx(everything[hit.chunk.id].dense, abs=1e-5)
            assert hit.score == pytest.approx(everything[hit.chunk.id].score, abs=1e-4)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


class Failing(HashingEmbeddings):
    """An embedder whose endpoint is down too: the question has no vector."""

    def embed_query(self, text: str) -> list[float]:
        raise RuntimeError("embedding endpoint down")


def test_with_the_store_away_and_no_question_vector_answers_come_from_the_lexical_gate(
    in_process: Index,
) -> None:
    remote = stored_beside(in_process, Away())
    remote.embeddings = Failing()
    lexical_only = index_documents(corpus(), embeddings=None)
    for question in QUESTIONS:
        hits = remote.search(question, 5)
        assert hits
        assert all(hit.dense is None for hit in hits)
        want = lexical_only.search(question, 5)
        assert [h.chunk.id for h in hits] == [h.chunk.id for h in want]
        # Shifted so that the served threshold means the lexical gate's own.
        shift = remote.min_score - LEXICAL_ONLY.threshold
        assert [h.score for h in hits] == pytest.approx([h.score + shift for h in want], abs=1e-5)


class Forgetting(MatrixVectors):
    """A store that lost one passage's vector (another process's re-index replaced it)."""

    def __init__(self, matrix: FloatArray, lost: int) -> None:
        super().__init__(matrix)
        self.lost = lost

    def dense(
        self, query: FloatArray, *, nearest: int, rows: RowArray | None, also: RowArray
    ) -> DenseFound:
        found = super().dense(query, nearest=nearest, rows=rows, also=also)
        keep = found.rows != self.lost
        asked = np.where(also == self.lost, np.float32(np.nan), found.asked).astype(np.float32)
        return DenseFound(found.rows[keep], found.cosines[keep], found.floor, asked)


def test_a_passage_whose_vector_is_gone_is_not_ranked_on_two_signals(in_process: Index) -> None:
    question = QUESTIONS[0]
    best = in_process.search(question, 1)[0]
    lost = in_process.chunks.index(best.chunk)
    remote = stored_beside(in_process, Forgetting(in_process._vectors, lost))  # type: ignore[arg-type]
    hits = remote.search(question, 5)
    assert best.chunk.id not in [hit.chunk.id for hit in hits]
    assert [h.chunk.id for h in hits] == [h.chunk.id for h in in_process.search(question, 6)[1:]]


def test_lexical_scores_of_unknown_size_are_not_needed() -> None:
    empty = LexicalScores(*(np.zeros(0, np.float32) for _ in range(3)))
    found = candidates.search(
        empty,
        rows=None,
        gate=LEXICAL_ONLY,
        k=1,
        query=None,
        store=Away(),
        min_score=0.0,
        weights=candidates.Weights(3.0, 1.0),
    )
    assert found == []
