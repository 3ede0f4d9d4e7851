"""The tuning corpora, each with questions scored by their answers (``bench.answerability``).

Each is a folder of documents (``DOCS_DIR``) and a JSON Lines file of questions in the
``realdocs-tune`` row format (``id``, ``question``, ``kind``, ``gold_file``, ``key_facts``,
``first_question`` for follow-ups). ``cmrc2018-trial`` comes as one JSON corpus and labelled
queries: :func:`prepare` writes it in that shape under the work folder (one ``<id>.md`` per
document, ``# title`` then its text), its answer spans as ``any_facts``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


@dataclass(frozen=True)
class Corpus:
    name: str
    docs: Path
    questions_file: Path

    def questions(self) -> list[Question]:
        lines = self.questions_file.read_text("utf-8").splitlines()
        return [Question(json.loads(line)) for line in lines if line.strip()]


@dataclass(frozen=True)
class Question:
    row: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.row["id"])

    @property
    def question(self) -> str:
        return str(self.row["question"])

    @property
    def kind(self) -> str:
        return str(self.row["kind"])

    @property
    def first_question(self) -> str | None:
        first = self.row.get("first_question")
        return None if first is None else str(first)

    @property
    def answerable(self) -> bool:
        return self.kind != "absent"


CORPORA = (
    Corpus(
        "en-18f", DATA / "realdocs-tune/en-18f/docs", DATA / "realdocs-tune/en-18f/questions.jsonl"
    ),
    Corpus(
        "zh-apisix",
        DATA / "realdocs-tune/zh-apisix/docs",
        DATA / "realdocs-tune/zh-apisix/questions.jsonl",
    ),
    Corpus(
        "clapnq",
        DATA / "field-ext-tune/clapnq/docs",
        DATA / "field-ext-tune/clapnq/questions.jsonl",
    ),
    Corpus("cmrc", Path("cmrc/docs"), Path("cmrc/questions.jsonl")),
    Corpus("docs", ROOT / "docs", Path("docs/questions.jsonl")),
)
"""cmrc's and docs' question files are relative to the work folder :func:`prepare` writes
them into. ``docs`` is the sample knowledge base with ``bench/calibration_questions.jsonl``
(22 answerable, 10 not; no key facts: correct = the right page cited)."""


def prepare(corpus: Corpus, work: Path) -> Corpus:
    """``corpus`` ready to read: cmrc2018-trial written into ``work`` first (once)."""
    if corpus.name == "docs":
        return _docs_questions(corpus, work)
    if corpus.name != "cmrc":
        return corpus
    folder = work / "cmrc"
    docs, questions = folder / "docs", folder / "questions.jsonl"
    if not questions.exists():
        source = DATA / "cmrc2018-trial"
        docs.mkdir(parents=True, exist_ok=True)
        for line in (source / "corpus.jsonl").read_text("utf-8").splitlines():
            doc = json.loads(line)
            text = f"# {doc.get('title') or doc['id']}\n\n{doc['text']}\n"
            (docs / f"{doc['id']}.md").write_text(text, "utf-8")
        rows = []
        for line in (source / "queries.jsonl").read_text("utf-8").splitlines():
            query = json.loads(line)
            if not query["question"].strip():
                continue  # two rows of the set have empty questions
            gold = query["gold_doc_id"]
            rows.append(
                {
                    "id": query["id"],
                    "question": query["question"],
                    "kind": "answerable" if gold else "absent",
                    "gold_file": f"{gold}.md" if gold else None,
                    "key_facts": [],
                    "any_facts": query.get("answers") or [],
                }
            )
        questions.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8"
        )
    return Corpus(corpus.name, docs, questions)


def _docs_questions(corpus: Corpus, work: Path) -> Corpus:
    rows = []
    lines = (ROOT / "bench" / "calibration_questions.jsonl").read_text("utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        row = json.loads(line)
        source = row.get("source")
        kind = "answerable" if source else "absent"
        rows.append(
            {
                "id": f"docs-{number:02d}",
                "question": row["question"],
                "kind": kind,
                "gold_file": source,
                "key_facts": [],
            }
        )
    questions = work / "docs" / "questions.jsonl"
    questions.parent.mkdir(parents=True, exist_ok=True)
    questions.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return Corpus(corpus.name, corpus.docs, questions)


def fold(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


_MARKER = re.compile(r"\[(\d+)\]")


def _cited(text: str, sources: list[str]) -> set[str]:
    numbers = {int(n) for n in _MARKER.findall(text)}
    return {source for n, source in enumerate(sources, start=1) if n in numbers}


def _sources(result: Any) -> list[str]:
    if isinstance(result, dict):
        return [s["source"] for s in sorted(result["sources"], key=lambda s: s["n"])]
    return [hit.chunk.source for hit in result.hits]


def outcome(question: Question, verdict: str, text: str, result: Any) -> str:
    """``correct`` | ``wrong`` | ``refused`` (or sent to review) for answerable questions;
    ``handled`` | ``answered`` for unanswerable ones. ``result``: a pipeline result or a
    ``rag ask --questions`` output line."""
    declined = verdict != "answer"
    if not question.answerable:
        return "handled" if declined else "answered"
    if declined:
        return "refused"
    any_facts = question.row.get("any_facts")
    if any_facts:
        body = fold(_MARKER.sub("", text))
        holds = any(fold(fact) in body for fact in any_facts)
    else:
        body = fold(text)
        holds = all(fold(fact) in body for fact in question.row["key_facts"])
    gold = question.row["gold_file"]
    return "correct" if holds and gold in _cited(text, _sources(result)) else "wrong"
