"""``python -m rag eval``: the output file and printed metrics follow DESIGN.md's contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.chunks import Chunk
from rag.cli import main
from rag.cli.eval import Outcome, fold, metrics
from rag.cli.eval_data import Query
from rag.results import Hit

CORPUS = [
    {"id": "d-refund", "title": "退费制度", "text": "退费手续费为可退金额的 5%，最低 50 元。"},
    {"id": "d-levels", "title": "课程级别", "text": "口语课共四个级别，每级 16 课时。"},
    {"id": "d-books", "title": "教材", "text": "教材费每级 280 元，不予退还。"},
    {"id": "d-leave", "title": "Annual leave", "text": "Employees get 20 days of paid leave."},
    {"id": "d-vpn", "title": "VPN", "text": "Use the VPN when working from home or travelling."},
    {"text": "Expense claims are due within 30 days of travel.", "id": "d-expense"},
]
QUERIES = [
    {"id": "q1", "question": "手续费最低多少？", "gold_doc_id": "d-refund", "answers": ["50 元"]},
    {
        "id": "q2",
        "question": "How many days of paid leave?",
        "gold_doc_id": "d-leave",
        "answers": ["20 DAYS"],
    },
    {"id": "q3", "question": "火星有几颗卫星？", "gold_doc_id": None, "answers": []},
    {"id": "q4", "question": "教材费能退吗？", "gold_doc_id": "d-books"},
]
METRICS = [
    "doc_recall@1", "doc_recall@5", "doc_mrr@10", "answer_recall@1", "answer_recall@5",
    "refusal_precision", "refusal_recall", "refusal_f1", "false_refusal_rate",
    "end_to_end_accuracy", "latency_ms_p50", "latency_ms_p95",
]  # fmt: skip


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    monkeypatch.setenv("INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.delenv("MIN_SCORE", raising=False)
    corpus = write_jsonl(tmp_path / "corpus.jsonl", CORPUS)  # type: ignore[arg-type]
    queries = write_jsonl(tmp_path / "queries.jsonl", QUERIES)  # type: ignore[arg-type]
    return corpus, queries, tmp_path / "out" / "results.jsonl"


def run_eval(files: tuple[Path, Path, Path], *extra: str) -> int:
    corpus, queries, out = files
    argv = ["eval", "--corpus", str(corpus), "--queries", str(queries), "--out", str(out)]
    return main([*argv, "--embeddings", "none", *extra])


def test_writes_one_line_per_query_in_the_contract_format(
    files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_eval(files) == 0
    lines = [json.loads(line) for line in files[2].read_text("utf-8").splitlines()]
    assert [line["id"] for line in lines] == ["q1", "q2", "q3", "q4"]
    texts = {doc["id"]: doc["text"] for doc in CORPUS}
    for line in lines:
        assert set(line) >= {"id", "refused", "hits", "latency_ms"}
        assert isinstance(line["refused"], bool)
        assert isinstance(line["latency_ms"], float)
        assert len(line["hits"]) >= 5  # even when refused
        for hit in line["hits"]:
            assert {"doc_id", "score", "text"} <= set(hit)
            assert hit["text"] in texts[hit["doc_id"]]  # the chunk as shown: no title prefix
        assert [hit["rank"] for hit in line["hits"]] == list(range(1, len(line["hits"]) + 1))
    assert lines[0]["hits"][0]["doc_id"] == "d-refund"
    assert lines[2]["refused"] is True
    printed = capsys.readouterr().out
    for name in METRICS:
        assert name in printed


def test_min_score_overrides_the_default(files: tuple[Path, Path, Path]) -> None:
    assert run_eval(files, "--min-score", "100") == 0
    lines = [json.loads(line) for line in files[2].read_text("utf-8").splitlines()]
    assert all(line["refused"] for line in lines)
    assert run_eval(files, "--min-score", "-100") == 0
    lines = [json.loads(line) for line in files[2].read_text("utf-8").splitlines()]
    assert not any(line["refused"] for line in lines)


def test_a_broken_line_is_reported_with_its_number(
    files: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    files[1].write_text('{"id": "q1", "question": "x", "gold_doc_id": null}\n{oops\n', "utf-8")
    assert run_eval(files) == 2
    assert "queries.jsonl:2: not a JSON object" in capsys.readouterr().err


def test_answers_match_after_nfkc_case_and_whitespace_folding() -> None:
    assert fold("ＡＢＣ １２\n3") == fold("abc 123") == "abc123"


def _outcome(
    gold: str | None, docs: list[str], refused: bool, answers: tuple[str, ...] = ()
) -> Outcome:
    hits = [Hit(Chunk(source=d, text=f"text of {d}", n=0, doc_id=d), score=0.0) for d in docs]
    return Outcome(Query("q", "question", gold, answers), hits, refused, latency_ms=2.0)


def test_metrics_count_refusing_as_the_positive_class() -> None:
    outcomes = [
        _outcome("a", ["a", "b"], refused=False, answers=("TEXT OF A",)),  # right, answered
        _outcome("b", ["a", "b"], refused=True, answers=("text of b",)),  # false refusal
        _outcome(None, ["a", "b"], refused=True),  # right refusal
        _outcome(None, ["a", "b"], refused=False),  # answered the unanswerable
    ]
    values = metrics(outcomes)
    assert values["doc_recall@1"] == 0.5
    assert values["doc_recall@5"] == 1.0
    assert values["doc_mrr@10"] == pytest.approx((1 + 1 / 2) / 2)
    assert values["answer_recall@1"] == 0.5
    assert values["answer_recall@5"] == 1.0
    assert values["refusal_precision"] == 0.5
    assert values["refusal_recall"] == 0.5
    assert values["refusal_f1"] == 0.5
    assert values["false_refusal_rate"] == 0.5
    assert values["end_to_end_accuracy"] == 0.5
    assert values["latency_ms_p50"] == 2.0
