"""Questions that span documents: does the answer name every part, each with its citation?

    .venv/bin/python -m bench.multipart                    # this checkout
    .venv/bin/python -m bench.multipart --before 451eeab   # also a commit, in a worktree
    .venv/bin/python -m bench.multipart --show             # each answer under its figures

Asks ``bench/lifecycle/questions-multipart.jsonl`` over ``bench/lifecycle/kb/multipart/`` with
the product's batch command (``python -m rag ask --questions``: e5 embeddings, the offline
extractive answerer, the citation checker), and scores each answer as the file defines: a part
counts when any of its strings appears (case-insensitive) in a sentence of the answer that
carries a citation marker ``[n]``; a question counts when every part does. An answer that is
not served (refused, or sent to review) names nothing. ``--before COMMIT`` answers the same
questions with that commit's code (a detached worktree under ``--work``) and prints both.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.realdocs import run_questions

ROOT = Path(__file__).resolve().parents[1]
KB = ROOT / "bench" / "lifecycle" / "kb" / "multipart"
QUESTIONS = ROOT / "bench" / "lifecycle" / "questions-multipart.jsonl"
_MARKER = re.compile(r"\[\d+(?:\.\d+)?\]")
_SENTENCE = re.compile(r"(?<=[。！？；!?])|(?<=[.:])\s+|\n")
"""An answer's sentences: cut after a Chinese sentence end and at a line break, and at an
English full stop or colon followed by a space (a marker sits before its full stop)."""

Row = dict[str, Any]


def cited_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that carry a citation marker."""
    return [s for s in _SENTENCE.split(text) if _MARKER.search(s)]


def named(part: list[str], sentences: list[str]) -> bool:
    """Whether any of ``part``'s strings is in one of the cited ``sentences``."""
    return any(name.casefold() in s.casefold() for name in part for s in sentences)


@dataclass(frozen=True)
class Score:
    parts: int
    """Parts named with a citation."""
    of: int

    @property
    def whole(self) -> bool:
        return self.parts == self.of


def score(question: Row, answer: Row) -> Score:
    parts = question["parts"]
    if answer["verdict"] != "answer":
        return Score(0, len(parts))
    sentences = cited_sentences(answer["text"])
    return Score(sum(named(part, sentences) for part in parts), len(parts))


def _jsonl(path: Path) -> list[Row]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def answers_now(questions: list[Row], work: Path) -> list[Row]:
    pairs = run_questions(
        KB, questions, embeddings="e5", index_dir=work / "index", out=work / "now.jsonl"
    )
    return [answer for _, answer in pairs]


def answers_before(commit: str, questions: list[Row], work: Path) -> list[Row]:
    """The answers of ``commit``'s code: its own batch command, run from a worktree of it."""
    tree = work / f"tree-{commit}"
    if not tree.exists():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit], check=True
        )
    asked = work / "questions.jsonl"
    asked.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), "utf-8")
    out = work / f"before-{commit}.jsonl"
    env = os.environ | {
        "PYTHONPATH": str(tree),
        "DOCS_DIR": str(KB),
        "INDEX_DIR": str(work / f"index-{commit}"),
        "EMBEDDINGS": "e5",
    }
    env.pop("REDIS_URL", None)  # a shared cache would serve another run's answers
    command = [sys.executable, "-m", "rag", "ask", "--questions", str(asked), "--out", str(out)]
    subprocess.run(command, check=True, env=env, cwd=tree, stdout=subprocess.DEVNULL)
    return _jsonl(out)


def _total(scores: list[Score]) -> str:
    whole = sum(s.whole for s in scores)
    parts = sum(s.parts for s in scores)
    of = sum(s.of for s in scores)
    share = f"{whole / len(scores):.0%}"
    return f"{whole} of {len(scores)} questions name every part ({share}); {parts} of {of} parts"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", metavar="COMMIT", help="also answer with this commit's code")
    parser.add_argument("--work", type=Path, default=Path("/tmp/citebot-multipart"))
    parser.add_argument("--show", action="store_true", help="print each answer")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    questions = _jsonl(QUESTIONS)
    runs: dict[str, list[Row]] = {}
    if args.before:
        runs["before"] = answers_before(args.before, questions, args.work)
    runs["now"] = answers_now(questions, args.work)
    scores = {name: [score(q, a) for q, a in zip(questions, answers, strict=True)]
              for name, answers in runs.items()}  # fmt: skip
    for at, question in enumerate(questions):
        cells = " · ".join(
            f"{name} {s[at].parts}/{s[at].of} {runs[name][at]['verdict']}"
            for name, s in scores.items()
        )
        print(f"{question['id']:<9} {cells}  {question['question']}")
        if args.show:
            for name, answers in runs.items():
                print(f"    {name}: " + answers[at]["text"].replace("\n", " ⏎ "))
    for name, s in scores.items():
        print(f"{name}: {_total(s)}")


if __name__ == "__main__":
    main()
