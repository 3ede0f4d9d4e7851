"""A second open of an unchanged folder loads what the first stored: no file is read (sizes and
times unchanged), no term is counted (the lexical index is stored), nothing is embedded; a
changed file is the only one read again; what ``rag index`` says it skipped adds up."""

from __future__ import annotations

import io
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import rag.ingest.loaders
import rag.language
import rag.search.lexical
from rag.cli.skips import skipped_count, skipped_lines
from rag.ingest.loaders import load_folder
from rag.search import build, folder_read
from rag.search.build import index_documents, load_or_build
from rag.search.embeddings import HashingEmbeddings
from rag.search.manifest import read_manifest, write_manifest
from rag.search.progress_line import ProgressLine

DOCS = Path(__file__).resolve().parents[3] / "docs"
HOUR_AGO = time.time() - 3600


class Counting(HashingEmbeddings):
    def __init__(self) -> None:
        super().__init__()
        self.embedded = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += len(texts)
        return super().embed_documents(texts)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = shutil.copytree(DOCS, tmp_path / "docs")
    for path in folder.rglob("*"):
        os.utime(path, (HOUR_AGO, HOUR_AGO))  # settled: its time can be trusted
    return folder


def counted(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[object]:
    """Every call of ``module.name`` from now on."""
    calls: list[object] = []
    real: Callable[..., Any] = getattr(module, name)

    def counting(*args: Any) -> Any:
        calls.append(args[0])
        return real(*args)

    monkeypatch.setattr(module, name, counting)
    return calls


def test_an_unchanged_folder_is_loaded_not_read_counted_or_embedded(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_dir = tmp_path / "index"
    first, _ = load_or_build(docs, index_dir, embeddings=Counting())
    reads = counted(monkeypatch, rag.ingest.loaders, "load_path")
    terms = counted(monkeypatch, rag.search.lexical, "search_terms")
    languages = counted(monkeypatch, rag.language, "detect_language")
    embedder = Counting()

    second, report = load_or_build(docs, index_dir, embeddings=embedder)
    crossed = second.search("How many days of annual leave can be carried over?", 5)

    assert reads == []
    assert terms == []  # no passage's terms counted: the lexical index was loaded
    # Nor their language read again: the English question over Chinese pages needed it.
    assert languages == []
    assert crossed[0].chunk.source == "hr/annual-leave.md"
    assert embedder.embedded == 0
    assert (report.files, report.chunked_files) == (7, 0)
    assert second.version == first.version
    question = "年假可以结转几天？"
    assert [h.chunk.id for h in second.search(question, 5)] == [
        h.chunk.id for h in first.search(question, 5)
    ]


def test_only_a_changed_file_is_read_and_split_again(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_dir = tmp_path / "index"
    load_or_build(docs, index_dir, embeddings=None)
    leave = docs / "hr" / "annual-leave.md"
    leave.write_text(leave.read_text("utf-8") + "\n\n年假申请须提前三天提交。\n", "utf-8")
    os.utime(leave, (HOUR_AGO + 60, HOUR_AGO + 60))
    touched = docs / "courses.md"
    os.utime(touched, (HOUR_AGO + 60, HOUR_AGO + 60))  # a new time, the same text
    reads = counted(monkeypatch, rag.ingest.loaders, "load_path")

    index, report = load_or_build(docs, index_dir, embeddings=None)

    assert sorted(Path(str(path)).name for path in reads) == ["annual-leave.md", "courses.md"]
    assert report.chunked_files == 1  # the touched file kept its chunks
    assert index.search("年假申请须提前几天提交？", 1)[0].chunk.source == "hr/annual-leave.md"


def test_sizes_and_times_recorded_by_other_code_are_not_trusted(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_dir = tmp_path / "index"
    load_or_build(docs, index_dir, embeddings=None)
    manifest = read_manifest(index_dir)
    assert manifest is not None
    write_manifest(index_dir, manifest.model_copy(update={"reader": "another-loader"}))
    reads = counted(monkeypatch, rag.ingest.loaders, "load_path")

    load_or_build(docs, index_dir, embeddings=None)

    assert len(reads) == 7  # a loader that reads differently must read every file again
    assert read_manifest(index_dir) == manifest  # and the record is this code's again


def test_a_file_written_just_before_it_was_read_is_hashed_again_next_time(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_dir = tmp_path / "index"
    fresh = docs / "courses.md"
    os.utime(fresh, None)  # now: a write in the same clock tick could follow unseen
    load_or_build(docs, index_dir, embeddings=None)
    monkeypatch.setattr(folder_read, "SETTLE_SECONDS", 0.0)
    reads = counted(monkeypatch, rag.ingest.loaders, "load_path")

    load_or_build(docs, index_dir, embeddings=None)

    assert [Path(str(path)).name for path in reads] == ["courses.md"]


def test_skipped_files_are_counted_by_reason_hidden_folders_included(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / ".github" / "workflows").mkdir(parents=True)
    (docs / ".github" / "workflows" / "ci.md").write_text("# ci\n", "utf-8")
    (docs / ".github" / "README.md").write_text("# hidden\n", "utf-8")
    (docs / ".notes.md").write_text("# notes\n", "utf-8")
    (docs / "logo.png").write_bytes(b"\x89PNG\r\n")
    (docs / "diagram.bin").write_bytes(b"\x00\x01")
    (docs / "empty.md").write_text("", "utf-8")
    (docs / "page.md").write_text("# 页面\n\n正文。\n", "utf-8")

    documents, skipped = load_folder(docs)

    assert [doc.source for doc in documents] == ["page.md"]
    assert skipped_count(skipped) == (
        "6 (2 in hidden folders, 2 unsupported: .bin, .png, 1 empty file, 1 hidden files)"
    )
    assert skipped_lines(skipped) == [
        "  skipped .github/ (hidden folder, 2 files)",
        "  skipped diagram.bin: unsupported file type .bin",
        "  skipped empty.md: empty file",
        "  skipped logo.png: unsupported file type .png",
    ]


def test_the_lexical_start_weighs_candidates_as_full_mode_does(docs: Path, tmp_path: Path) -> None:
    """``rag ask`` before the vectors exist and a bot's lexical phase answer from the lexical
    index, each question's candidates embedded on demand and weighed by the embedder's gate
    and threshold (not EMBEDDINGS=none's); a version of their own keeps their cached answers
    apart from both."""
    lexical_start, report = load_or_build(
        docs, tmp_path / "a", embeddings=Counting(), embed_at_most=0
    )
    no_embeddings, _ = load_or_build(docs, tmp_path / "b", embeddings=None)
    full, _ = load_or_build(docs, tmp_path / "c", embeddings=Counting())

    assert report.missing == report.vectors > 0
    assert lexical_start.embeddings is None
    assert lexical_start.on_demand is not None
    assert lexical_start.gate == full.gate != no_embeddings.gate
    assert lexical_start.min_score == full.min_score
    assert len({lexical_start.version, no_embeddings.version, full.version}) == 3
    hits = lexical_start.search("年假可以结转几天？", 5)
    assert hits
    assert all(hit.dense is not None for hit in hits)


def test_an_unchanged_folder_opens_from_its_snapshot_without_validating_the_manifest(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_dir = tmp_path / "index"
    first, _ = load_or_build(docs, index_dir, embeddings=Counting())
    assert len(list(index_dir.glob("snapshot-*.json"))) == 1
    validated = counted(monkeypatch, build, "parse_manifest")

    second, report = load_or_build(docs, index_dir, embeddings=Counting())

    assert validated == []
    assert second.chunks == first.chunks
    assert (second.version, report.previous_version) == (first.version, first.version)


def test_with_a_snapshot_a_changed_file_is_still_read_and_the_version_moves(
    docs: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    before, _ = load_or_build(docs, index_dir, embeddings=None)
    leave = docs / "hr" / "annual-leave.md"
    leave.write_text(leave.read_text("utf-8") + "\n\n年假申请须提前三天提交。\n", "utf-8")
    os.utime(leave, (HOUR_AGO + 60, HOUR_AGO + 60))

    after, report = load_or_build(docs, index_dir, embeddings=None)
    again, _ = load_or_build(docs, index_dir, embeddings=None)  # from the new snapshot

    assert report.chunked_files == 1
    assert after.version != before.version
    assert again.version == after.version
    assert again.search("年假申请须提前几天提交？", 1)[0].chunk.source == "hr/annual-leave.md"


def test_a_damaged_snapshot_costs_only_reading_the_manifest(docs: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    built, _ = load_or_build(docs, index_dir, embeddings=None)
    (snapshot,) = index_dir.glob("snapshot-*.json")
    snapshot.write_text('{"format": 1, "files": [["x"', "utf-8")

    reopened, report = load_or_build(docs, index_dir, embeddings=None)

    assert (reopened.version, reopened.chunks) == (built.version, built.chunks)
    assert report.chunked_files == 0


def test_the_version_is_the_one_an_index_of_the_same_chunks_has_in_memory(
    docs: Path, tmp_path: Path
) -> None:
    """The version from the files' stored digests is the version of the chunks themselves."""
    stored, _ = load_or_build(docs, tmp_path / "index", embeddings=None)
    documents, _ = load_folder(docs)

    assert index_documents(documents, embeddings=None).version == stored.version


def test_a_new_folder_says_it_is_reading_before_the_first_passage_exists(
    docs: Path, tmp_path: Path
) -> None:
    out = io.StringIO()
    line = ProgressLine(out, terminal=False, quiet=0.0)

    load_or_build(docs, tmp_path / "index", embeddings=None, on_stage=line.stage)

    lines = out.getvalue().splitlines()
    assert lines[0] == "reading: 0 of 7 files (0.0%)"
    assert [text.split(":")[0] for text in lines] == [
        "reading", "reading", "splitting", "splitting", "counting terms", "counting terms",
    ]  # fmt: skip


def test_a_lexical_start_over_a_record_of_other_code_reads_the_folder_once_not_every_time(
    docs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lexical start writes no manifest over a full one (it would announce a new version):
    after an upgrade that changed the reading code, the snapshot still spares the next runs
    from reading every file again."""
    index_dir = tmp_path / "index"
    load_or_build(docs, index_dir, embeddings=None)  # recorded; no vector embedded yet
    manifest = read_manifest(index_dir)
    assert manifest is not None
    older = write_manifest(index_dir, manifest.model_copy(update={"reader": "older-code"}))
    reads = counted(monkeypatch, rag.ingest.loaders, "load_path")

    _, first = load_or_build(docs, index_dir, embeddings=Counting(), embed_at_most=0)
    read_first = len(reads)
    index, second = load_or_build(docs, index_dir, embeddings=Counting(), embed_at_most=0)

    assert first.missing == second.missing > 0  # lexical starts, both
    assert (index_dir / "manifest.json").read_bytes() == older  # no manifest written
    assert read_first == 7
    assert len(reads) == read_first  # the second start read nothing
    assert second.files == 7
    assert len(index) > 0


def test_a_loaded_index_has_the_passages_it_was_built_with(tmp_path: Path) -> None:
    # A table longer than a passage: the later passages carry its header row (table_head),
    # which a snapshot once dropped, so answers after a restart lost their column names.
    rows = "\n".join(
        f"| option_{i} | integer | 否 | {i} | 第 {i} 个选项的说明文字。 |" for i in range(80)
    )
    folder = tmp_path / "docs"
    folder.mkdir()
    head = "| 名称 | 类型 | 必选项 | 默认值 | 描述 |\n|---|---|---|---|---|"
    (folder / "plugin.md").write_text(f"# 插件\n\n## 属性\n\n{head}\n{rows}\n", encoding="utf-8")
    os.utime(folder / "plugin.md", (HOUR_AGO, HOUR_AGO))
    index_dir = tmp_path / "index"
    built, _ = load_or_build(folder, index_dir, embeddings=HashingEmbeddings())
    loaded, _ = load_or_build(folder, index_dir, embeddings=HashingEmbeddings())

    assert any(chunk.table_head for chunk in built.chunks)
    assert loaded.chunks == built.chunks
