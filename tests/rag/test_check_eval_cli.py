"""``python -m rag check-eval``: one verdict per recorded answer, exactly the pipeline's."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from rag.check.claims import MIN_SUPPORT
from rag.check.screen import screen
from rag.cli import main
from rag.cli.check_eval import read_records
from rag.messages import REFUSAL
from tests.fakes.openai_server import FakeOpenAIServer, RecordedRequest, Step

SOURCE = "Full-time employees receive 20 days of paid annual leave per year."
RECORDS = [
    {
        "id": "good",
        "answer": "Full-time employees get 20 days of paid annual leave [1].",
        "sources": [SOURCE],
        "label": "supported",
        "origin": "hand/en",
        "meta": {"question": "How much leave do I get?", "has_number": True},
    },
    {
        "id": "bad",
        "answer": "Full-time employees get 25 days of paid annual leave [1].",
        "sources": [SOURCE],
        "label": "unsupported",
        "origin": "hand/en",
        "meta": {"question": "How much leave do I get?", "has_number": True},
    },
    {"id": "refused", "answer": REFUSAL["en"], "sources": [SOURCE], "meta": {}},
]


def _run(
    tmp_path: Path, records: list[dict[str, object]], *options: str
) -> tuple[int, list[dict[str, object]]]:
    answers, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    answers.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    code = main(["check-eval", "--answers", str(answers), "--out", str(out), *options])
    lines = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
    return code, [json.loads(line) for line in lines]


def test_every_record_gets_a_verdict_with_named_problems(tmp_path: Path) -> None:
    code, out = _run(tmp_path, RECORDS)
    assert code == 0
    verdicts = {row["id"]: row for row in out}
    assert set(verdicts) == {"good", "bad", "refused"}
    assert verdicts["good"] == {"id": "good", "flagged": False, "problems": []}
    assert verdicts["bad"]["flagged"] is True
    [problem] = verdicts["bad"]["problems"]  # type: ignore[misc]
    assert problem["kind"] == "ungrounded_number"
    assert problem["sentence"] == RECORDS[1]["answer"]
    assert "“25”" in problem["message"]
    assert verdicts["refused"]["flagged"] is False  # the asker gets the refusal, nobody reviews


def test_flagged_is_the_pipelines_decision(tmp_path: Path) -> None:
    answers = tmp_path / "in.jsonl"
    answers.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    _, out = _run(tmp_path, RECORDS)
    expected = {
        record.id: screen(record.answer, record.hits, question=record.question).flagged
        for record in read_records(answers)
    }
    assert {row["id"]: row["flagged"] for row in out} == expected


def test_the_decision_ignores_labels_and_other_meta(tmp_path: Path) -> None:
    _, with_labels = _run(tmp_path, RECORDS)
    stripped = [
        {key: value for key, value in r.items() if key not in {"label", "origin"}}
        | {"meta": {"question": r["meta"].get("question", "")}}  # type: ignore[attr-defined]
        for r in RECORDS
    ]
    _, without = _run(tmp_path, stripped)
    assert without == with_labels


def test_labels_print_catch_and_false_alarm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(tmp_path, RECORDS)
    printed = capsys.readouterr().out
    assert "answers judged: 3, flagged (sent to review): 1" in printed
    assert "100.0% (1/1)" in printed  # caught the unsupported one
    assert "0.0% (0/1)" in printed  # no false alarm on the supported one
    assert "t = 0.20" in printed


def test_a_malformed_line_is_named_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = _run(tmp_path, [{"id": "x", "answer": "no sources"}])
    assert code == 2
    assert "line 1" in capsys.readouterr().err


def test_each_threshold_row_is_the_decision_the_checker_takes_at_that_threshold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    half = {  # half of its content words are in the source: passes at 0.5, not above
        "id": "half",
        "answer": "Full-time employees receive paid leave, gym access, cafeteria meals and "
        "free parking [1].",
        "sources": [SOURCE],
        "label": "supported",
        "origin": "hand/en",
        "meta": {"question": "What do employees get?", "has_number": False},
    }
    _run(tmp_path, [half])
    rows = {
        line.split()[2]: line for line in capsys.readouterr().out.splitlines() if "t = " in line
    }
    assert "0.0% (0/1)" in rows["0.50"]
    assert "100.0% (1/1)" in rows["0.55"]
    for threshold, flagged in ((0.5, False), (0.55, True)):
        monkeypatch.setitem(MIN_SUPPORT, "en", threshold)
        _, out = _run(tmp_path, [half])
        assert out[0]["flagged"] is flagged


# --- with the model judge on: the fake OpenAI-compatible server gives the verdicts ----------


def _verdict_for(request: RecordedRequest) -> Step:
    """The judge's reply as a model would write it: the 25-day sentence is unsupported, the
    malformed one gets no JSON, every other sentence is supported."""
    sentences = request.content_of("user").split("Sentences:\n", 1)[1]
    if "garbled" in sentences:
        return "I think it is mostly fine."
    supported = "25 days" not in sentences
    row = {"sentence": 1, "supported": supported, "missing": "" if supported else "25 days"}
    return json.dumps({"verdicts": [row]})


JUDGED = [
    *RECORDS,
    {
        "id": "garbled",
        "answer": "Full-time employees get 20 days of paid annual leave, garbled [1].",
        "sources": [SOURCE],
        "label": "supported",
        "meta": {"question": "How much leave do I get?"},
    },
]


async def test_with_the_judge_on_its_verdicts_join_the_decision_and_its_cost_is_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async with FakeOpenAIServer(responder=_verdict_for) as server:
        monkeypatch.setenv("LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("LLM_API_KEY", server.api_key)
        monkeypatch.setenv("LLM_MODEL", "judge-model")
        monkeypatch.setenv("CHECKER_MODEL_JUDGE", "true")
        # check-eval runs its own event loop; the fake server keeps serving on this one
        code, out = await asyncio.to_thread(_run, tmp_path, JUDGED, "--judge-calls", "2")
    assert code == 0
    problems = {row["id"]: [p["kind"] for p in row["problems"]] for row in out}  # type: ignore[union-attr]
    assert problems == {
        "good": [],
        "bad": ["ungrounded_number", "judged_unsupported"],  # the judge adds, never removes
        "refused": [],  # a refusal is not judged
        "garbled": ["judge_unavailable"],  # no usable verdict: review, not the asker
    }
    assert len(server.requests) == 3
    printed = capsys.readouterr().out
    assert "model judge: 3 calls for 3 answers, 1 without a usable verdict" in printed
    assert "model judge per answer: latency p50" in printed
    [cost] = [line for line in printed.splitlines() if line.startswith("model judge per answer")]
    assert int(cost.split("tokens mean ")[1].split(",")[0]) > 0  # as the endpoint reported


def test_judge_calls_must_be_a_positive_whole_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        _run(tmp_path, RECORDS, "--judge-calls", "0")
    assert "at least 1" in capsys.readouterr().err
