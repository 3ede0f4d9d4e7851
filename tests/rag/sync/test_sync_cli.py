"""``python -m rag sync`` and ``rag report`` as an admin runs them, against the fake wikis.

The command runs in a thread (it runs its own event loop, as from a terminal) while the fakes
serve on the test's loop; the environment is the process's, as the command reads it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from rag.cli import main
from tests.fakes.confluence_api import FakeConfluence
from tests.fakes.feishu_wiki import FakeFeishuWiki, text
from tests.rag.sync.conftest import secrets_env, sources_toml


async def rag(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = await asyncio.to_thread(main, list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    for name, value in {
        **secrets_env(),
        "DOCS_DIR": str(tmp_path / "docs"),
        "INDEX_DIR": str(tmp_path / "index"),
        "EMBEDDINGS": "none",
        "REDIS_URL": "",
        "SOURCES_FILE": "",
    }.items():
        monkeypatch.setenv(name, value)
    return tmp_path


async def test_rag_sync_prints_one_line_per_source_and_rag_report_shows_the_last_sync(
    confluence: FakeConfluence,
    feishu: FakeFeishuWiki,
    environment: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    leave = confluence.add_page("HR", "Leave", "<p>15 days.</p>")
    confluence.add_page("HR", "Travel", "<p>x</p>")
    space = feishu.add_space("手册")
    feishu.add_doc(space, "报销", [text("5000 元")])
    sources = environment / "sources.toml"
    sources.write_text(sources_toml(confluence, feishu, feishu_spaces=(space,)), "utf-8")
    monkeypatch.setenv("SOURCES_FILE", str(sources))

    code, out, _ = await rag(capsys, "sync")

    assert code == 0
    assert out.splitlines()[0].startswith("wiki: 2 added, 0 changed, 0 removed, 0 failed; ")
    assert out.splitlines()[1].startswith("handbook: 1 added, 0 changed, 0 removed, 0 failed; ")
    confluence.fail("page", status=400)  # not retried: the command would sleep for real
    confluence.edit(leave, "<p>20 days.</p>")
    code, out, _ = await rag(capsys, "sync", "--source", "wiki")
    assert code == 1
    assert out.startswith("wiki: 0 added, 0 changed, 0 removed, 1 failed ")
    assert "(confluence/HR/Leave.md: HTTP 400)" in out
    assert len(out.splitlines()) == 1  # only the source asked for

    code, out, _ = await rag(capsys, "report", "--json")
    assert code == 0
    shown = {source["source"]: source for source in json.loads(out)["sources"]}
    assert shown["wiki"]["last_sync"]["outcome"] == "partial"
    assert shown["wiki"]["last_sync"]["failed"] == [
        {"document": "confluence/HR/Leave.md", "reason": "HTTP 400"}
    ]
    assert shown["handbook"]["documents"] == 1
    code, out, _ = await rag(capsys, "report")
    assert "Synced sources (SOURCES_FILE):" in out
    assert "    confluence/HR/Leave.md: HTTP 400" in out


async def test_rag_sync_without_a_sources_file_or_with_an_unknown_source_says_what_to_set(
    confluence: FakeConfluence,
    environment: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = await rag(capsys, "sync")
    assert code == 2
    assert err.strip() == (
        "citebot: SOURCES_FILE is not set: set it to the TOML file of wikis (guide/sources.md)"
    )

    sources = environment / "sources.toml"
    sources.write_text(sources_toml(confluence), "utf-8")
    monkeypatch.setenv("SOURCES_FILE", str(sources))
    code, _, err = await rag(capsys, "sync", "--source", "nope")
    assert code == 2
    assert err.strip().startswith("citebot: no source named 'nope' in SOURCES_FILE ")
    assert len(err.strip().splitlines()) == 1
