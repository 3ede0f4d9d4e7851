"""Bad documents at the index level: every bad file skipped with one clear line, the good ones
searchable, and the persisted index consistent across reopenings, changes and removals.

(Each loader failure on its own is pinned in tests/rag/test_loaders.py; here they arrive
together, through ``open_index`` / ``load_or_build``, as an operator's DOCS_DIR would hold them.)
"""

from __future__ import annotations

import logging
from pathlib import Path

import docx
import pytest

import rag.ingest.loaders
from rag.assemble import build_index
from rag.ingest.loaders import LoadedFile
from rag.search.build import load_or_build
from rag.search.embeddings import HashingEmbeddings
from rag.search.index import Index
from rag.settings import Settings

GOOD = "# 退费与转班制度\n\n## 三、退费计算口径\n\n退费按剩余课时计算，手续费为可退金额的 5%。\n"
GBK = "# 年假\n\n员工每年享有带薪年假十五天，须提前两周申请。\n"


def write_folder(root: Path) -> None:
    (root / "policies").mkdir(parents=True)
    (root / "policies" / "refund.md").write_text(GOOD, encoding="utf-8")
    (root / "hr.txt").write_bytes(GBK.encode("gbk"))
    (root / "headings.md").write_text("# 标题\n\n## 一\n\n### 二\n", encoding="utf-8")
    (root / "fake.pdf").write_text("<!doctype html><html><body>退费</body></html>", "utf-8")
    full = root / "full.docx"
    document = docx.Document()
    document.add_heading("助教手册", level=1)
    document.add_paragraph("课前 15 分钟到教室。" * 50)
    document.save(str(full))
    data = full.read_bytes()
    full.unlink()
    (root / "cut.docx").write_bytes(data[: len(data) // 2])
    with (root / "huge.txt").open("wb") as handle:
        handle.truncate(50 * 2**20)  # sparse: 50 MB by size, nothing written
    (root / "loop").mkdir()
    (root / "loop" / "again").symlink_to(root, target_is_directory=True)


def assert_consistent(index: Index) -> None:
    ids = [chunk.id for chunk in index.chunks]
    assert len(ids) == len(set(ids))
    assert all(index.chunk(chunk_id) is not None for chunk_id in ids)
    assert all(chunk.text.strip() for chunk in index.chunks)


def skip_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("skipped ")]


def test_a_folder_of_bad_files_builds_an_index_of_the_good_ones(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    docs = tmp_path / "docs"
    write_folder(docs)
    settings = Settings(docs_dir=docs, index_dir=tmp_path / "index", embeddings="none")
    with caplog.at_level(logging.WARNING):
        index, report = build_index(settings)
    skipped = {item.path: item.reason for item in report.skipped}
    assert set(skipped) == {"cut.docx", "fake.pdf", "huge.txt"}
    assert "truncated" in skipped["cut.docx"]
    assert "too large" in skipped["huge.txt"]
    assert sorted(skip_lines(caplog)) == sorted(f"skipped {p}: {r}" for p, r in skipped.items())
    assert {chunk.source for chunk in index.chunks} == {"policies/refund.md", "hr.txt"}
    assert index.search("退费怎么算", 1)[0].chunk.source == "policies/refund.md"
    assert index.search("年假有几天", 1)[0].chunk.source == "hr.txt"
    assert_consistent(index)


def test_reopening_with_the_bad_files_still_there_reuses_everything(tmp_path: Path) -> None:
    docs, index_dir = tmp_path / "docs", tmp_path / "index"
    write_folder(docs)
    first, _ = load_or_build(docs, index_dir, embeddings=HashingEmbeddings())
    again, report = load_or_build(docs, index_dir, embeddings=HashingEmbeddings())
    assert (report.chunked_files, report.embedded) == (0, 0)
    assert again.version == first.version
    assert again.chunks == first.chunks


def test_a_good_file_that_turns_bad_leaves_the_index_instead_of_serving_old_text(
    tmp_path: Path,
) -> None:
    docs, index_dir = tmp_path / "docs", tmp_path / "index"
    write_folder(docs)
    before, _ = load_or_build(docs, index_dir, embeddings=HashingEmbeddings())
    (docs / "policies" / "refund.md").write_bytes(b"\xff\xfe\x00\x00" + bytes(range(256)) * 4)
    after, report = load_or_build(docs, index_dir, embeddings=HashingEmbeddings())
    assert after.version != before.version
    assert {chunk.source for chunk in after.chunks} == {"hr.txt"}
    assert "policies/refund.md" in {item.path for item in report.skipped}
    assert_consistent(after)


def test_a_file_removed_while_indexing_is_skipped_and_the_next_build_agrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    docs, index_dir = tmp_path / "docs", tmp_path / "index"
    write_folder(docs)
    real_load_path = rag.ingest.loaders.load_path

    def removed_just_before(path: Path, root: Path) -> LoadedFile:
        if path.name == "hr.txt":
            path.unlink()  # discovered, then deleted before it was read
        return real_load_path(path, root)

    monkeypatch.setattr(rag.ingest.loaders, "load_path", removed_just_before)
    with caplog.at_level(logging.WARNING):
        during, _ = load_or_build(docs, index_dir, embeddings=HashingEmbeddings())
    monkeypatch.undo()
    assert "skipped hr.txt: file not found (removed, or a broken symbolic link)" in skip_lines(
        caplog
    )
    assert {chunk.source for chunk in during.chunks} == {"policies/refund.md"}
    assert_consistent(during)
    after, report = load_or_build(docs, index_dir, embeddings=HashingEmbeddings())
    assert after.version == during.version
    assert report.chunked_files == 0
