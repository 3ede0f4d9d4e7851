"""``rag ask --scope`` and ``rag eval --scope``: admins see exactly what that audience would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.cli import main

SCOPES = """\
[scopes]
public = ["public/**"]
hr = ["hr/**"]
"""
LEAVE = "# Annual leave\n\nFull-time employees receive 20 days of paid annual leave per year.\n"
PRICING = "# Pricing\n\nThe fluent level costs 4800 yuan for 16 lessons.\n"
QUESTION = "How many days of paid annual leave do employees receive?"


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    docs = tmp_path / "docs"
    (docs / "hr").mkdir(parents=True)
    (docs / "public").mkdir()
    (docs / "hr" / "leave.md").write_text(LEAVE, "utf-8")
    (docs / "public" / "pricing.md").write_text(PRICING, "utf-8")
    (tmp_path / "scopes.toml").write_text(SCOPES, "utf-8")
    for name, value in {
        "DOCS_DIR": str(docs),
        "INDEX_DIR": str(tmp_path / "index"),
        "EMBEDDINGS": "none",
        "SCOPES_FILE": str(tmp_path / "scopes.toml"),
    }.items():
        monkeypatch.setenv(name, value)
    for name in ("MIN_SCORE", "REDIS_URL", "LLM_BASE_URL", "LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def ask(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["ask", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def sources(result: dict[str, object]) -> set[str]:
    return {str(s["source"]) for s in result["sources"]}  # type: ignore[attr-defined, index]


def test_ask_with_a_scope_sees_only_that_scope(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    public = ask(capsys, "--scope", "public", QUESTION)
    assert public["verdict"] == "refusal"
    assert sources(public) <= {"public/pricing.md"}
    hr = ask(capsys, "--scope", "hr", QUESTION)
    assert hr["verdict"] == "answer"
    assert "hr/leave.md" in sources(hr)
    everything = ask(capsys, QUESTION)
    assert everything["verdict"] == "answer"


def test_ask_with_an_unknown_scope_stops(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", "--scope", "finance", QUESTION]) == 2
    assert "unknown scope 'finance' (known: hr, public)" in capsys.readouterr().err


def test_a_scope_needs_a_scopes_file(
    workspace: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SCOPES_FILE")
    assert main(["ask", "--scope", "hr", QUESTION]) == 2
    assert "--scope needs SCOPES_FILE" in capsys.readouterr().err


def test_a_bad_scopes_file_stops_with_one_line(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (workspace / "scopes.toml").write_text(SCOPES + "[channels]\nC0PUB0001 = 'pub'\n", "utf-8")
    assert main(["ask", QUESTION]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        "scopes.toml:5: [channels] C0PUB0001: scope 'pub' is not defined in "
        "[scopes] (defined: hr, public)"
    )
    assert "\n" not in err


def test_eval_with_a_scope_searches_only_it_and_expects_refusals_outside(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = workspace / "corpus.jsonl"
    corpus.write_text(
        json.dumps({"id": "hr/leave.md", "text": LEAVE})
        + "\n"
        + json.dumps({"id": "public/pricing.md", "text": PRICING})
        + "\n",
        "utf-8",
    )
    queries = workspace / "queries.jsonl"
    queries.write_text(
        json.dumps({"id": "q1", "question": QUESTION, "gold_doc_id": "hr/leave.md"}) + "\n",
        "utf-8",
    )
    out = workspace / "out.jsonl"
    argv = ["eval", "--corpus", str(corpus), "--queries", str(queries), "--out", str(out)]
    assert main([*argv, "--scope", "public"]) == 0
    printed = capsys.readouterr().out
    assert "scope public: 1 of 2 documents searched" in printed
    result = json.loads(out.read_text("utf-8"))
    assert {hit["doc_id"] for hit in result["hits"]} == {"public/pricing.md"}
    assert result["refused"] is True
    assert "end_to_end_accuracy          1.000" in printed
