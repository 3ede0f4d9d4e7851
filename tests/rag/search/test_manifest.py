"""``manifest.json`` as a validated record: an INDEX_DIR written before keeps working in place."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rag.lifecycle import CURRENT
from rag.search.build import load_or_build
from rag.search.manifest import MANIFEST_FILE, Manifest, read_manifest, write_manifest

LEVELS = "# 课程体系\n\n## 一、级别设置\n\n口语课共分四个级别：入门级、进阶级、流利级、商务级。\n"
LEAVE = "---\nurl: https://intranet.example/leave\n---\n# Annual leave\n\n20 days a year.\n"


def _docs(tmp_path: Path) -> tuple[Path, Path]:
    docs_dir, index_dir = tmp_path / "docs", tmp_path / "index"
    (docs_dir / "hr").mkdir(parents=True)
    (docs_dir / "levels.md").write_text(LEVELS, "utf-8")
    (docs_dir / "hr/leave.md").write_text(LEAVE, "utf-8")
    return docs_dir, index_dir


def _as_written_before(manifest: dict[str, Any]) -> str:
    """The manifest as the code before manifest records wrote it: ``json.dumps`` of a dict,
    ``format`` 1, chunks as plain objects (rebuilt here key by key, not dumped by the model)."""
    files = {
        source: {
            "hash": entry["hash"],
            "chunks": [
                {key: chunk[key] for key in ("text", "n", "heading", "start", "section")}
                | {key: chunk[key] for key in ("title", "link", "doc_id")}
                for chunk in entry["chunks"]
            ],
        }
        for source, entry in manifest["files"].items()
    }
    old = {key: manifest[key] for key in ("version", "splitter", "embedder", "gate")}
    return json.dumps({"format": 1, **old, "files": files}, ensure_ascii=False)


def test_an_index_dir_written_by_the_previous_code_is_reused_as_it_is(tmp_path: Path) -> None:
    docs_dir, index_dir = _docs(tmp_path)
    built, _ = load_or_build(docs_dir, index_dir, embeddings=None)
    path = index_dir / MANIFEST_FILE
    stored = json.loads(path.read_text("utf-8"))
    assert set(stored) == {"format", "version", "splitter", "embedder", "gate", "files", "reader"}
    path.write_text(_as_written_before(stored), "utf-8")

    again, report = load_or_build(docs_dir, index_dir, embeddings=None)
    assert report.chunked_files == 0  # nothing re-split
    assert again.version == built.version == report.previous_version
    # Manifests written before documents had a lifecycle hold none: their passages read as
    # current and undated (a real upgrade reads every file again: the reader changed).
    assert [replace(c, lifecycle=CURRENT) for c in again.chunks] == [
        replace(c, lifecycle=CURRENT) for c in built.chunks
    ]
    upgraded = path.stat().st_mtime_ns  # once, with the files' sizes and the reader
    load_or_build(docs_dir, index_dir, embeddings=None)
    assert path.stat().st_mtime_ns == upgraded  # unchanged index: the manifest is not rewritten


def test_a_manifest_round_trips(tmp_path: Path) -> None:
    docs_dir, index_dir = _docs(tmp_path)
    load_or_build(docs_dir, index_dir, embeddings=None)
    manifest = read_manifest(index_dir)
    assert manifest is not None
    assert manifest.files["hr/leave.md"].chunks[0].link == "https://intranet.example/leave"
    write_manifest(tmp_path / "copy", manifest)
    assert read_manifest(tmp_path / "copy") == manifest


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"format": 2}, "manifest.json.format: Value error, layout version 2 is not readable"),
        ({"splitter": ["800", 100]}, "manifest.json.splitter.0: Input should be a valid integer"),
    ],
)
def test_a_manifest_it_cannot_read_means_one_line_and_a_clean_rebuild(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, change: dict[str, Any], named: str
) -> None:
    docs_dir, index_dir = _docs(tmp_path)
    built, _ = load_or_build(docs_dir, index_dir, embeddings=None)
    path = index_dir / MANIFEST_FILE
    path.write_text(json.dumps({**json.loads(path.read_text("utf-8")), **change}), "utf-8")

    with caplog.at_level(logging.WARNING, logger="rag.search.manifest"):
        rebuilt, report = load_or_build(docs_dir, index_dir, embeddings=None)
    [line] = [r.getMessage() for r in caplog.records if r.name == "rag.search.manifest"]
    assert named in line
    assert line.endswith("the index will be rebuilt")
    assert (report.chunked_files, rebuilt.version) == (2, built.version)
    assert Manifest.model_validate_json(path.read_bytes()).version == built.version


def test_a_documents_lifecycle_is_kept_by_the_manifest_and_the_snapshot(tmp_path: Path) -> None:
    docs_dir, index_dir = _docs(tmp_path)
    (docs_dir / "hr/old.md").write_text(
        "---\nstatus: superseded\nsuperseded_by: hr/leave.md\nupdated: 2023-01-02\n---\n"
        "# Old leave\n\n15 days a year.\n",
        "utf-8",
    )
    built, _ = load_or_build(docs_dir, index_dir, embeddings=None)
    manifest = read_manifest(index_dir)
    assert manifest is not None
    stored = manifest.files["hr/old.md"].chunks[0].chunk("hr/old.md")
    again, report = load_or_build(docs_dir, index_dir, embeddings=None)  # from the snapshot
    assert report.chunked_files == 0
    for chunks in (built.chunks, again.chunks, (stored,)):
        old = next(c for c in chunks if c.source == "hr/old.md")
        assert (old.lifecycle.status, old.lifecycle.updated) == ("superseded", "2023-01-02")
        assert old.lifecycle.superseded_by == "hr/leave.md"
    assert again.chunks == built.chunks
