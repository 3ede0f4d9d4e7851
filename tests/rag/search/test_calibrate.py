"""``python -m rag calibrate``: distributions, the threshold, and the file the index reads."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from rag.assemble import open_index
from rag.cli import main
from rag.search.calibration import CALIBRATION_FILE, best_threshold, refusal_metrics, text_histogram
from rag.search.gate import LEXICAL_ONLY
from rag.settings import Settings

DOCS = {
    "refund.md": "# 退费制度\n\n退费手续费为可退金额的 5%，最低 50 元。教材费每级 280 元，不退。\n",
    "courses.md": "# 课程级别\n\n口语课共四个级别：入门级、进阶级、流利级、商务级，每级 16 课。\n",
    "hr/leave.md": "# Annual leave\n\nFull-time employees get 20 days of paid annual leave.\n",
}
QUESTIONS: list[dict[str, object]] = [
    {"question": "退费手续费最低多少？", "source": "refund.md"},
    {"question": "教材费退不退？", "source": "refund.md"},
    {"question": "口语课有几个级别？", "source": "courses.md"},
    {"question": "How many days of annual leave do employees get?", "gold_doc_id": "hr/leave.md"},
    {"question": "公司食堂几点开饭？", "source": None},
    {"question": "Who won the 1998 world cup?", "source": None},
]


@pytest.fixture
def team(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in DOCS.items():
        (tmp_path / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "docs" / name).write_text(text, "utf-8")
    monkeypatch.setenv("DOCS_DIR", str(tmp_path / "docs"))
    monkeypatch.setenv("INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setenv("EMBEDDINGS", "none")
    monkeypatch.delenv("MIN_SCORE", raising=False)
    return tmp_path


def write_questions(path: Path, questions: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), "utf-8")
    return path


def test_prints_both_distributions_and_writes_what_the_index_then_uses(
    team: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = write_questions(team / "questions.jsonl", QUESTIONS)
    assert main(["calibrate", "--questions", str(questions)]) == 0
    printed = capsys.readouterr().out
    assert "answerable" in printed
    assert "unanswerable (should refuse)" in printed
    assert "<- threshold" in printed
    assert "threshold maximising the F1 of refusing" in printed
    assert "false refusals: 0 of 4 (0%)" in printed
    assert "answered anyway: 0 of 2 (0%)" in printed

    stored = json.loads((team / "index" / CALIBRATION_FILE).read_text("utf-8"))
    assert stored["gate"] == LEXICAL_ONLY.identity
    assert (stored["answerable"], stored["unanswerable"], stored["f1"]) == (4, 2, 1.0)
    settings = Settings(docs_dir=team / "docs", index_dir=team / "index", embeddings="none")
    assert open_index(settings).min_score == stored["min_score"]
    assert stored["min_score"] != LEXICAL_ONLY.threshold


def test_dry_run_writes_nothing(team: Path) -> None:
    questions = write_questions(team / "questions.jsonl", QUESTIONS)
    assert main(["calibrate", "--questions", str(questions), "--dry-run"]) == 0
    assert not (team / "index" / CALIBRATION_FILE).exists()


def test_plot_is_drawn(team: Path, capsys: pytest.CaptureFixture[str]) -> None:
    questions = write_questions(team / "questions.jsonl", QUESTIONS)
    plot = team / "scores.png"
    assert main(["calibrate", "--questions", str(questions), "--plot", str(plot)]) == 0
    assert plot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert f"plot written to {plot}" in capsys.readouterr().out


def test_plot_without_matplotlib_is_explained(
    team: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # matplotlib is a dependency, but an install without it must still calibrate.
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    questions = write_questions(team / "questions.jsonl", QUESTIONS)
    plot = team / "scores.png"
    assert main(["calibrate", "--questions", str(questions), "--plot", str(plot)]) == 0
    assert not plot.exists()
    out = capsys.readouterr().out
    assert "--plot needs matplotlib" in out
    assert "threshold maximising the F1 of refusing" in out


def test_needs_questions_of_both_kinds(team: Path, capsys: pytest.CaptureFixture[str]) -> None:
    questions = write_questions(team / "questions.jsonl", QUESTIONS[:4])
    assert main(["calibrate", "--questions", str(questions)]) == 2
    assert "ones none does, with source null (got 0)" in capsys.readouterr().err


def test_a_label_naming_no_indexed_document_is_flagged(
    team: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong: list[dict[str, object]] = [
        *QUESTIONS,
        {"question": "报销多久内提交？", "source": "finance/expenses.md"},
    ]
    questions = write_questions(team / "questions.jsonl", wrong)
    assert main(["calibrate", "--questions", str(questions), "--dry-run"]) == 0
    assert "'finance/expenses.md'" in capsys.readouterr().out


def test_best_threshold_sits_between_separable_groups() -> None:
    scores = [0.9, 0.8, 0.7, -0.6, -0.8]
    refuse = [False, False, False, True, True]
    choice = best_threshold(scores, refuse)
    assert -0.6 < choice.threshold < 0.7
    assert choice.metrics.f1 == 1.0


def test_best_threshold_trades_errors_for_f1() -> None:
    # Sorted: -0.5 refuse, -0.3 answer, 0.0 refuse, 0.2 refuse, 0.9 answer. Refusing all but
    # 0.9 (one false refusal) beats every lower cut.
    scores = [0.9, -0.3, 0.2, -0.5, 0.0]
    refuse = [False, False, True, True, True]
    choice = best_threshold(scores, refuse)
    assert 0.2 < choice.threshold < 0.9
    assert choice.metrics == refusal_metrics([s < choice.threshold for s in scores], refuse)
    assert choice.metrics.f1 == pytest.approx(6 / 7)


def test_histogram_has_a_row_per_bin_and_counts_everything() -> None:
    text = text_histogram({"a": [0.0, 0.1, 1.0], "b": [0.5]}, threshold=0.55, bins=4)
    rows = text.splitlines()
    assert len(rows) == 5
    assert sum(int(tok) for row in rows[1:] for tok in row.split() if tok.isdigit()) == 4
    assert rows[3].endswith("<- threshold")
