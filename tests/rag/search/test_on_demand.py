"""Before the vectors exist, each question's lexical candidates are embedded on demand: the gate
weighs them as in full mode, and the backfill takes them instead of embedding them again."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag.search.build import load_or_build
from rag.search.embedding_run import embed_chunks
from rag.search.embeddings import CachedEmbeddings, HashingEmbeddings
from rag.search.gate import HASHING
from rag.search.on_demand import BACKGROUND, CANDIDATES, background_rows


class Counting(HashingEmbeddings):
    def __init__(self) -> None:
        super().__init__()
        self.documents: list[str] = []
        self.queries: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents.extend(texts)
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return super().embed_query(text)


TOPICS = ["年假", "病假", "加班", "报销", "退费", "转班", "口语", "密码", "出差", "考勤"]


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(60):  # 60 passages: more than a question's candidates
        topic = TOPICS[n % len(TOPICS)]
        text = f"# 制度 {n}\n\n{topic}第 {n} 条：{topic}须提前 {n + 1} 天在系统中提交申请。\n"
        (folder / f"rule-{n:02d}.md").write_text(text, encoding="utf-8")
    return folder


def test_a_question_embeds_only_its_lexical_candidates_once(docs: Path, tmp_path: Path) -> None:
    embedder = Counting()
    index, report = load_or_build(docs, tmp_path / "index", embeddings=embedder, embed_at_most=0)
    assert report.missing == 60
    assert index.on_demand is not None
    assert index.gate is HASHING  # weighed like full mode, not by the lexical gate

    hits = index.search("年假须提前几天申请？", 5)

    assert 0 < len(embedder.documents) <= CANDIDATES
    assert all(hit.dense is not None for hit in hits)  # every hit was weighed densely
    assert "年假" in hits[0].chunk.text
    embedded = len(embedder.documents)
    index.search("年假须提前几天申请？", 5)
    assert len(embedder.documents) == embedded  # kept: the same candidates are not embedded again


def test_the_backfill_takes_the_vectors_embedded_on_demand(docs: Path, tmp_path: Path) -> None:
    on_demand = Counting()
    index, _ = load_or_build(docs, tmp_path / "index", embeddings=on_demand, embed_at_most=0)
    index.search("病假怎么请？", 5)
    handed = set(on_demand.documents)
    assert handed

    backfill = Counting()
    cache = CachedEmbeddings(backfill, tmp_path / "index")
    embed_chunks(index.chunks, cache)

    assert len(backfill.documents) == 60 - len(handed)
    assert handed.isdisjoint(backfill.documents)


def test_the_backfill_embeds_the_background_sample_first(docs: Path, tmp_path: Path) -> None:
    index, _ = load_or_build(docs, tmp_path / "index", embeddings=None)
    embedder = Counting()
    embed_chunks(index.chunks, CachedEmbeddings(embedder, tmp_path / "index"))
    sample = {index.chunks[row].dense_text for row in background_rows(len(index.chunks))}
    assert set(embedder.documents[: len(sample)]) == sample


def test_the_background_sample_is_fixed_and_spread() -> None:
    rows = background_rows(10_000)
    assert len(rows) == BACKGROUND
    assert rows[0] == 0
    assert rows[-1] == 9_999
    assert np.array_equal(rows, background_rows(10_000))
    assert np.array_equal(background_rows(50), np.arange(50))
