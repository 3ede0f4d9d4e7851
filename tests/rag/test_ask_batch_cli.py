"""``python -m rag ask --questions IN.jsonl --out OUT.jsonl``: every question answered in one
process, in order, follow-ups made standalone as the bot makes them, bad input refused whole."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rag.cli import main
from tests.fakes.openai_server import FakeOpenAIServer, HttpError

POLICY = """# 请假制度

## 年假

员工工作满一年后享有年假 5 天，工作满十年享有年假 10 天。

## 病假

病假需要提供医院证明，每年带薪病假最多 12 天。
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    docs = tmp_path / "docs"
    (docs / "hr").mkdir(parents=True)
    (docs / "hr" / "leave.md").write_text(POLICY, encoding="utf-8")
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("DOCS_DIR", str(docs))
    monkeypatch.setenv("INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setenv("EMBEDDINGS", "none")
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    return tmp_path


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def test_answers_each_question_in_order_with_its_sources(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = write(
        folder / "in.jsonl",
        [
            {"id": "leave", "question": "工作满十年年假有几天？", "gold": "ignored"},
            {"id": "mars", "question": "火星上的天气怎么样？"},
            {"id": 3, "question": "病假最多几天？"},
        ],
    )
    out = folder / "out.jsonl"

    assert main(["ask", "--questions", str(questions), "--out", str(out)]) == 0

    answered = lines(out)
    assert [a["id"] for a in answered] == ["leave", "mars", "3"]
    leave, mars, sick = answered
    assert leave["verdict"] == "answer"
    assert "10 天" in str(leave["text"])
    assert re.search(r"\[\d+\]", str(leave["text"]))
    first_source = leave["sources"][0]  # type: ignore[index]
    # No front matter: a current document, dated by its file's modification time.
    mtime = (folder / "docs" / "hr" / "leave.md").stat().st_mtime
    updated = datetime.fromtimestamp(mtime, UTC).date().isoformat()
    assert first_source == {
        "n": 1,
        "source": "hr/leave.md",
        "heading": "请假制度 › 年假",
        "updated": updated,
    }
    assert mars["verdict"] == "refusal"
    assert sick["verdict"] == "answer"
    assert "12 天" in str(sick["text"])
    printed = capsys.readouterr().out.splitlines()
    assert printed == ["answer: 2", "refusal: 1", "unverified: 0"]


def test_a_follow_up_is_answered_as_the_second_turn_of_its_thread(folder: Path) -> None:
    questions = write(
        folder / "in.jsonl",
        [{"id": "fu", "question": "那病假呢？", "first_question": "年假最多几天？"}],
    )
    out = folder / "out.jsonl"

    assert main(["ask", "--questions", str(questions), "--out", str(out)]) == 0

    (follow_up,) = lines(out)
    assert follow_up["verdict"] == "answer"
    assert "12 天" in str(follow_up["text"])


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('{"id": "x"}', "in.jsonl:2: 'question' must be a non-empty string"),
        ("not json", "in.jsonl:2: not a JSON object"),
        ('{"id": "a", "question": "again"}', "in.jsonl:2: id 'a' appears twice"),
    ],
)
def test_a_bad_line_is_named_and_nothing_is_answered(
    folder: Path, capsys: pytest.CaptureFixture[str], line: str, says: str
) -> None:
    questions = folder / "in.jsonl"
    questions.write_text('{"id": "a", "question": "年假有几天？"}\n' + line + "\n", "utf-8")
    out = folder / "out.jsonl"

    assert main(["ask", "--questions", str(questions), "--out", str(out)]) == 2

    assert says in capsys.readouterr().err
    assert not out.exists()


def test_questions_need_an_out_file(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    questions = write(folder / "in.jsonl", [{"id": "a", "question": "年假有几天？"}])

    assert main(["ask", "--questions", str(questions)]) == 2
    assert "--out" in capsys.readouterr().err


async def test_a_model_failure_is_written_on_its_line_and_the_run_goes_on(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = write(
        folder / "in.jsonl",
        [
            {"id": "a", "question": "工作满十年年假有几天？"},
            {"id": "b", "question": "病假最多几天？"},
        ],
    )
    out = folder / "out.jsonl"
    async with FakeOpenAIServer() as server:
        # one attempt a question (so no retry wait): the first fails, the second is answered
        server.script(HttpError(500), "每年带薪病假最多 12 天[1]。")
        monkeypatch.setenv("LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("LLM_API_KEY", server.api_key)
        monkeypatch.setenv("LLM_MODEL", "chat-model")
        monkeypatch.setenv("LLM_MAX_ATTEMPTS", "1")
        code = await asyncio.to_thread(
            main, ["ask", "--questions", str(questions), "--out", str(out)]
        )

    assert code == 0
    failed, answered = lines(out)
    assert failed["verdict"] == "refusal"
    assert failed["sources"] == []
    assert failed["failure"]
    assert "年假" not in str(failed["text"])  # the failure sentence, not a draft
    assert answered["verdict"] == "answer"
    assert "12 天" in str(answered["text"])
    printed = capsys.readouterr().out.splitlines()
    assert printed[:3] == ["answer: 1", "refusal: 1", "unverified: 0"]
    assert printed[3].startswith("model failed: 1")
