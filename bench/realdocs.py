"""Questions over real documents: answered correctly, refused, out-of-scope refused.

    .venv/bin/python bench/realdocs.py                       # all four corpora, lexical phase
    .venv/bin/python bench/realdocs.py --embeddings e5       # full mode (embeds the corpora)
    .venv/bin/python bench/realdocs.py --corpus en-18f --show wrong
    .venv/bin/python bench/realdocs.py --embeddings e5 --vector-store qdrant   # vectors in Qdrant

Runs the product's own batch command, ``python -m rag ask --questions IN --out OUT``, over each
corpus (``DOCS_DIR`` = its documents, an index of its own under ``--work``) and scores the
answers:

- ``en-18f``, ``zh-apisix`` (``../shared/data/realdocs-tune``) and ``clapnq``
  (``../shared/data/field-ext-tune``), as realdocs-tune's README defines: *correct* = not
  refused, every key fact in the text (NFKC, case-folded, whitespace removed) and the gold file
  among the cited sources;
- ``cmrc`` (``../shared/data/cmrc2018-trial``): its ``corpus.jsonl`` written as one
  ``<id>.md`` per document (``# title``, then the text) under ``--work``; a question with a
  ``gold_doc_id`` is answerable, *correct* when the gold file is cited and any of its
  ``answers`` spans is in the text once the ``[n]`` markers are removed (folded as above).

*refused* = refusal or sent to review; an ``absent`` question (no gold) is handled when it is
refused or sent to review. Each kind is reported per corpus, with "answered but wrong" apart
from refusals (they point at different knobs: extraction or retrieval versus the threshold).

:func:`run_questions` and :func:`outcome` take paths and rows and return per-question results,
so other benches (a left-one-corpus-out table) reuse them. ``--vector-store qdrant`` keeps each
corpus's vectors in a Qdrant collection in local mode (``QDRANT_PATH`` under ``--work``)
instead of the index's own cache: the answers must match.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
DATA = SHARED / "realdocs-tune"
CLAPNQ = SHARED / "field-ext-tune" / "clapnq"
CMRC = SHARED / "cmrc2018-trial"
CORPORA = ("en-18f", "zh-apisix", "clapnq", "cmrc")
KIND_ORDER = ("answerable", "chinese", "english", "followup", "absent")
_MARKER = re.compile(r"\[\d+(?:\.\d+)?\]")

Row = dict[str, Any]


@dataclass(frozen=True)
class Corpus:
    """A folder of documents and its question rows (realdocs-tune's format)."""

    name: str
    docs: Path
    questions: list[Row]


def fold(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def cited(answer: Row) -> set[str]:
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", answer["text"])}
    return {s["source"] for s in answer["sources"] if s["n"] in numbers}


def _holds_answer(question: Row, text: str) -> bool:
    """Every key fact in the text (realdocs-tune, as its README scores), or any of the
    ``answers`` spans once the markers are out (cmrc2018-trial's span answers)."""
    if "answers" in question:
        plain = fold(_MARKER.sub("", text))
        return any(fold(span) in plain for span in question["answers"])
    folded = fold(text)
    return all(fold(fact) in folded for fact in question["key_facts"])


def outcome(question: Row, answer: Row) -> str:
    """``correct`` | ``wrong`` | ``refused`` for answerable kinds; ``handled`` | ``answered``
    for absent ones."""
    declined = answer["verdict"] != "answer"
    if question["kind"] == "absent":
        return "handled" if declined else "answered"
    if declined:
        return "refused"
    found = _holds_answer(question, answer["text"])
    return "correct" if found and question["gold_file"] in cited(answer) else "wrong"


def _jsonl(path: Path) -> list[Row]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def realdocs_corpus(name: str) -> Corpus:
    folder = CLAPNQ if name == "clapnq" else DATA / name
    return Corpus(name, folder / "docs", _jsonl(folder / "questions.jsonl"))


def cmrc_corpus(work: Path, data: Path = CMRC) -> Corpus:
    """cmrc2018-trial as a folder (one ``<id>.md`` per document under ``work``) and question
    rows: answerable when ``gold_doc_id`` is set, questions with an empty text left out."""
    docs = work / "cmrc-docs"
    docs.mkdir(parents=True, exist_ok=True)
    for document in _jsonl(data / "corpus.jsonl"):
        page = f"# {document.get('title') or document['id']}\n\n{document['text']}\n"
        path = docs / f"{document['id']}.md"
        if not path.exists() or path.read_text("utf-8") != page:
            path.write_text(page, "utf-8")
    rows = []
    for query in _jsonl(data / "queries.jsonl"):
        if not query["question"].strip():
            continue
        gold = query.get("gold_doc_id")
        rows.append(
            {
                "id": query["id"],
                "question": query["question"],
                "kind": "answerable" if gold else "absent",
                "gold_file": f"{gold}.md" if gold else None,
                "answers": query.get("answers") or [],
            }
        )
    return Corpus("cmrc", docs, rows)


def load_corpus(name: str, work: Path) -> Corpus:
    return cmrc_corpus(work) if name == "cmrc" else realdocs_corpus(name)


def run_questions(
    docs: Path,
    questions: list[Row],
    *,
    embeddings: str,
    index_dir: Path,
    out: Path,
    env: dict[str, str] | None = None,
) -> list[tuple[Row, Row]]:
    """Asks ``questions`` over ``docs`` with ``python -m rag ask --questions`` (index under
    ``index_dir``, answers written to ``out``); ``(question, answer)`` pairs in order."""
    asked = out.with_suffix(".questions.jsonl")
    asked.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions), "utf-8")
    environment = os.environ | (env or {})
    environment |= {"DOCS_DIR": str(docs), "INDEX_DIR": str(index_dir), "EMBEDDINGS": embeddings}
    environment.pop("REDIS_URL", None)  # a shared cache would serve an earlier run's answers
    subprocess.run(
        [sys.executable, "-m", "rag", "ask", "--questions", str(asked), "--out", str(out)],
        check=True,
        env=environment,
        cwd=out.parent,
        stdout=subprocess.DEVNULL,
    )
    return list(zip(questions, _jsonl(out), strict=True))


def run_corpus(
    corpus: Corpus, embeddings: str, work: Path, env: dict[str, str] | None = None
) -> list[tuple[Row, Row]]:
    started = time.perf_counter()
    store = "-qdrant" if (env or {}).get("VECTOR_STORE") == "qdrant" else ""
    pairs = run_questions(
        corpus.docs,
        corpus.questions,
        embeddings=embeddings,
        index_dir=work / f"index-{corpus.name}-{embeddings}",
        out=work / f"{corpus.name}-{embeddings}{store}.jsonl",
        env=env,
    )
    seconds = time.perf_counter() - started
    print(f"{corpus.name}: {len(pairs)} questions in {seconds:.0f} s (index build included)")
    return pairs


def _show(question: Row, answer: Row, result: str) -> None:
    print(f"  [{result}] {question['id']} {question['question']!r}")
    print(f"      gold {question.get('gold_file')} · {question.get('gold_heading')}")
    facts = question.get("key_facts", question.get("answers"))
    print(f"      facts {facts}  cited {sorted(cited(answer))}")
    print("      " + answer["text"][:300].replace("\n", " ⏎ "))


def report(pairs: list[tuple[Row, Row]], show: str | None, out: Callable[[str], None]) -> None:
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    for question, answer in pairs:
        result = outcome(question, answer)
        by_kind[question["kind"]][result] += 1
        if show and result == show:
            _show(question, answer, result)
    for kind in KIND_ORDER:
        counts = by_kind.get(kind)
        if not counts:
            continue
        total = sum(counts.values())
        if kind == "absent":
            out(f"  {kind:<10} refused or to review {counts['handled']:>3} of {total}")
            continue
        out(
            f"  {kind:<10} correct {counts['correct']:>3} of {total} "
            f"({counts['correct'] / total:.0%}) · refused {counts['refused']:>3} "
            f"({counts['refused'] / total:.0%}) · answered but wrong {counts['wrong']:>3}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=CORPORA, action="append")
    parser.add_argument("--embeddings", default="none", choices=("none", "e5"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/citebot-realdocs"))
    parser.add_argument("--show", choices=("correct", "wrong", "refused", "answered", "handled"))
    parser.add_argument("--vector-store", default="local", choices=("local", "qdrant"))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    summaries: list[str] = []
    for name in args.corpus or CORPORA:
        env = {}
        if args.vector_store == "qdrant":
            path = args.work / f"qdrant-{name}-{args.embeddings}"
            env = {"VECTOR_STORE": "qdrant", "QDRANT_PATH": str(path)}
        pairs = run_corpus(load_corpus(name, args.work), args.embeddings, args.work, env)
        summaries.append(f"{name} ({args.embeddings}):")
        report(pairs, args.show, summaries.append)
    print("\n".join(summaries))


if __name__ == "__main__":
    main()
