"""The index: hybrid search results, stable order, versions, persistence, incremental rebuilds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.ingest.documents import SourceDocument
from rag.ingest.splitter import Splitter
from rag.search.build import index_documents, load_or_build
from rag.search.calibration import Calibration, save_calibration
from rag.search.embeddings import HashingEmbeddings
from rag.search.gate import HASHING, LEXICAL_ONLY
from rag.search.index import Index
from rag.search.manifest import MANIFEST_FILE
from rag.search.vectors import VectorStore

REFUND = SourceDocument(
    source="policies/refund.md",
    title="退费与转班制度",
    text=(
        "# 退费与转班制度\n\n## 三、退费计算口径\n\n"
        "退费金额 = 实付金额 × 剩余课时 ÷ 总课时 − 手续费。手续费为可退金额的 5%，最低 50 元。"
        "教材费每级 280 元，不予退还。\n"
    ),
)
COURSES = SourceDocument(
    source="courses.md",
    title="口语课程体系",
    text=(
        "# 口语课程体系\n\n口语课共四个级别：入门级、进阶级、流利级、商务级。"
        "每级 16 课时，每课时 45 分钟，八周学完。流利级单独报名 4800 元。\n"
    ),
)
LEAVE = SourceDocument(
    source="hr/leave.md",
    title="Annual leave",
    text=(
        "# Annual leave\n\nFull-time employees receive 20 days of paid annual leave per year. "
        "Unused leave expires on 31 March of the following year.\n"
    ),
)
DOCS = [REFUND, COURSES, LEAVE]


class CountingEmbeddings(HashingEmbeddings):
    """HashingEmbeddings that records every text it is asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.embedded: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded.extend(texts)
        return super().embed_documents(texts)


def write_docs(folder: Path, docs: list[SourceDocument]) -> None:
    for doc in docs:
        path = folder / doc.source
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(doc.text, encoding="utf-8")


@pytest.fixture
def index(vector_store: VectorStore | None) -> Index:
    """The same documents, their vectors in this process or in Qdrant: every test below
    must hold for each."""
    return index_documents(DOCS, embeddings=HashingEmbeddings(), store=vector_store)


def test_search_finds_the_passage_and_reports_every_score(index: Index) -> None:
    hits = index.search("退费的手续费最低多少钱？", 3)
    assert hits[0].chunk.source == "policies/refund.md"
    assert [hit.rank for hit in hits] == [1, 2, 3]
    assert all(hit.lexical is not None and hit.dense is not None for hit in hits)
    scores = [hit.score for hit in hits]
    assert all(isinstance(score, float) for score in scores)


def test_with_a_measured_embedder_hits_come_in_gate_score_order(index: Index) -> None:
    assert index.gate is HASHING
    hits = index.search("口语课每级多少课时？", 3)
    assert hits[0].chunk.source == "courses.md"
    scores = [hit.score for hit in hits]
    assert scores == sorted(scores, reverse=True)


def test_english_question_finds_the_english_document(index: Index) -> None:
    hit = index.search("How many days of annual leave do I get?", 1)[0]
    assert hit.chunk.source == "hr/leave.md"


def test_returns_at_most_the_number_of_chunks(index: Index) -> None:
    assert len(index.search("口语课", 50)) == len(index) == 3


def test_k_must_be_positive(index: Index) -> None:
    with pytest.raises(ValueError, match=r"k \(0\)"):
        index.search("口语课", 0)


def test_heading_and_title_are_searchable_but_not_shown(index: Index) -> None:
    hit = index.search("退费计算口径", 1)[0]
    assert hit.chunk.heading == ("退费与转班制度", "三、退费计算口径")
    assert "退费计算口径" not in hit.chunk.text
    assert "三、退费计算口径" in hit.chunk.indexed_text


def test_lexical_only_index_ranks_and_gates_on_the_lexical_signal() -> None:
    index = index_documents(DOCS, embeddings=None)
    hits = index.search("教材费退不退？", 3)
    assert hits[0].chunk.source == "policies/refund.md"
    assert all(hit.dense is None for hit in hits)
    assert index.gate is LEXICAL_ONLY
    assert index.min_score == LEXICAL_ONLY.threshold


def test_a_question_sharing_nothing_with_the_documents_still_gets_ranked_hits() -> None:
    index = index_documents(DOCS, embeddings=None)
    hits = index.search("¿Dónde está la biblioteca?", 2)
    assert [hit.rank for hit in hits] == [1, 2]
    assert all(hit.score < index.min_score for hit in hits)


def test_identical_chunks_keep_index_order_on_every_search() -> None:
    twins = [
        SourceDocument(source=f"copy-{n}.md", text="报销须在出差后 30 天内提交。") for n in range(4)
    ]
    index = index_documents(twins, embeddings=HashingEmbeddings())
    for _ in range(3):
        hits = index.ranked("报销什么时候提交", 4)  # by score alone: search() keeps one copy
        assert [hit.chunk.source for hit in hits] == [f"copy-{n}.md" for n in range(4)]
        assert [hit.chunk.source for hit in index.search("报销什么时候提交", 4)] == ["copy-0.md"]


def test_chunk_is_found_by_its_id(index: Index) -> None:
    chunk = index.chunks[1]
    assert index.chunk(chunk.id) == chunk
    assert index.chunk("missing.md#0") is None


def test_empty_index_finds_nothing() -> None:
    index = index_documents([], embeddings=HashingEmbeddings())
    assert len(index) == 0
    assert index.search("anything", 5) == []


def test_version_follows_text_splitter_and_embedder() -> None:
    base = index_documents(DOCS, embeddings=HashingEmbeddings()).version
    assert index_documents(DOCS, embeddings=HashingEmbeddings()).version == base
    edited = [REFUND, COURSES, SourceDocument(LEAVE.source, LEAVE.text + "More.", LEAVE.title)]
    assert index_documents(edited, embeddings=HashingEmbeddings()).version != base
    small = Splitter(chunk_size=120, chunk_overlap=20)
    resplit = index_documents(DOCS, embeddings=HashingEmbeddings(), splitter=small)
    assert resplit.version != base
    assert index_documents(DOCS, embeddings=HashingEmbeddings(dim=64)).version != base
    assert index_documents(DOCS, embeddings=None).version != base


# --- persistence and incremental rebuilds ----------------------------------------------------


def test_second_open_reuses_everything_and_searches_the_same(
    tmp_path: Path, vector_store: VectorStore | None
) -> None:
    docs_dir, index_dir = tmp_path / "docs", tmp_path / "index"
    write_docs(docs_dir, DOCS)
    first_embedder = CountingEmbeddings()
    first, first_report = load_or_build(
        docs_dir, index_dir, embeddings=first_embedder, vector_store=vector_store
    )
    assert first_report.chunked_files == 3
    assert len(first_embedder.embedded) == len(first)
    assert (index_dir / MANIFEST_FILE).exists()

    embedder = CountingEmbeddings()
    second, report = load_or_build(
        docs_dir, index_dir, embeddings=embedder, vector_store=vector_store
    )
    assert embedder.embedded == []
    assert (report.chunked_files, report.embedded) == (0, 0)
    assert report.reused == len(second)
    assert second.version == first.version == report.previous_version
    assert second.chunks == first.chunks
    question = "流利级多少钱？"
    assert [(h.chunk.id, round(h.score, 5)) for h in second.search(question, 3)] == [
        (h.chunk.id, round(h.score, 5)) for h in first.search(question, 3)
    ]


def test_only_the_changed_file_is_split_and_embedded(
    tmp_path: Path, vector_store: VectorStore | None
) -> None:
    docs_dir, index_dir = tmp_path / "docs", tmp_path / "index"
    write_docs(docs_dir, DOCS)
    before, _ = load_or_build(
        docs_dir, index_dir, embeddings=CountingEmbeddings(), vector_store=vector_store
    )
    (docs_dir / "hr/leave.md").write_text(LEAVE.text + "\nCarry-over needs approval.\n", "utf-8")

    embedder = CountingEmbeddings()
    after, report = load_or_build(
        docs_dir, index_dir, embeddings=embedder, vector_store=vector_store
    )
    assert report.chunked_files == 1
    assert embedder.embedded
    assert all("Annual leave" in text for text in embedder.embedded)
    assert after.version != before.version
    assert any("Carry-over" in c.text for c in after.chunks)
    hits = after.search("Does carry-over need approval?", 1)
    assert "Carry-over" in hits[0].chunk.text
    assert hits[0].dense is not None


def test_a_removed_file_leaves_the_index(tmp_path: Path) -> None:
    docs_dir, index_dir = tmp_path / "docs", tmp_path / "index"
    write_docs(docs_dir, DOCS)
    before, _ = load_or_build(docs_dir, index_dir, embeddings=None)
    (docs_dir / "courses.md").unlink()
    after, _ = load_or_build(docs_dir, index_dir, embeddings=None)
    assert {c.source for c in after.chunks} == {"policies/refund.md", "hr/leave.md"}
    assert after.version != before.version


def test_a_damaged_manifest_means_a_rebuild_not_a_crash(tmp_path: Path) -> None:
    docs_dir, index_dir = tmp_path / "docs", tmp_path / "index"
    write_docs(docs_dir, DOCS)
    built, _ = load_or_build(docs_dir, index_dir, embeddings=None)
    (index_dir / MANIFEST_FILE).write_text("{not json", "utf-8")
    rebuilt, report = load_or_build(docs_dir, index_dir, embeddings=None)
    assert rebuilt.version == built.version
    assert report.chunked_files == 3
    assert json.loads((index_dir / MANIFEST_FILE).read_text("utf-8"))["version"] == built.version


def _calibration(gate: str, min_score: float) -> Calibration:
    return Calibration(min_score, gate, 10, 6, 4, 0.9, 0.1, 0.1, "v")


def test_min_score_is_the_calibration_for_the_same_gate(tmp_path: Path) -> None:
    docs_dir, index_dir = tmp_path / "docs", tmp_path / "index"
    write_docs(docs_dir, DOCS)

    def min_score(given: float | None = None) -> float:
        return load_or_build(docs_dir, index_dir, embeddings=None, min_score=given)[0].min_score

    assert min_score() == LEXICAL_ONLY.threshold
    save_calibration(index_dir, _calibration(LEXICAL_ONLY.identity, 0.42))
    assert min_score() == 0.42
    # MIN_SCORE wins over the calibration.
    assert min_score(-1.0) == -1.0
    # A calibration measured with another gate is on another scale: ignored.
    hashing, _ = load_or_build(docs_dir, index_dir, embeddings=HashingEmbeddings())
    assert hashing.min_score == HASHING.threshold


class BrokenQueries(HashingEmbeddings):
    def embed_query(self, text: str) -> list[float]:
        msg = "embedding endpoint unreachable"
        raise ConnectionError(msg)


def test_a_failing_query_embedder_falls_back_to_lexical_search(
    caplog: pytest.LogCaptureFixture,
) -> None:
    index = index_documents(DOCS, embeddings=BrokenQueries())
    hits = index.search("教材费退不退？", 2)
    assert hits[0].chunk.source == "policies/refund.md"
    assert all(hit.dense is None for hit in hits)
    assert "query embedding failed" in caplog.text


def test_index_command_summarises_files_skips_chunks_and_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from rag.cli import main

    docs_dir = tmp_path / "docs"
    write_docs(docs_dir, DOCS)
    (docs_dir / "photo.png").write_bytes(b"\x89PNG\r\n")
    monkeypatch.setenv("INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setenv("EMBEDDINGS", "none")
    assert main(["index", "--docs", str(docs_dir)]) == 0
    first = capsys.readouterr().out
    assert "files read: 3 (3 split, 0 unchanged), skipped: 1" in first
    assert "skipped photo.png: " in first
    assert "chunks: 3 (dense search off (EMBEDDINGS=none))" in first
    assert "(new)" in first
    assert main(["index", "--docs", str(docs_dir)]) == 0
    assert "(3 split" not in (second := capsys.readouterr().out)
    assert "(unchanged)" in second


def test_index_command_explains_a_missing_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from rag.cli import main

    monkeypatch.setenv("INDEX_DIR", str(tmp_path / "index"))
    assert main(["index", "--docs", str(tmp_path / "nowhere")]) == 2
    assert "does not exist; set DOCS_DIR or pass --docs DIR" in capsys.readouterr().err
