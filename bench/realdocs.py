"""Chat-style questions over real documentation: answered correctly, refused, off-topic refused.

    .venv/bin/python bench/realdocs.py                       # both corpora, lexical phase
    .venv/bin/python bench/realdocs.py --embeddings e5       # full mode (embeds the corpus)
    .venv/bin/python bench/realdocs.py --corpus en-18f --show wrong
    .venv/bin/python bench/realdocs.py --embeddings e5 --vector-store qdrant   # vectors in Qdrant

``--vector-store qdrant`` keeps each corpus's vectors in a Qdrant collection in local mode
(``QDRANT_PATH`` under ``--work``) instead of the index's own cache: the answers must match.

Runs the product's own batch command, ``python -m rag ask --questions IN --out OUT``, over each
corpus of ``../shared/data/realdocs-tune`` (``DOCS_DIR`` = its ``docs/``, an index of its own
under ``--work``) and scores the answers as that set's README defines: *correct* = not refused,
every key fact in the text (NFKC, case-folded, whitespace removed) and the gold file among the
cited sources; *refused* = refusal or sent to review; an ``absent`` question is handled when it
is refused or sent to review. Each kind is reported per corpus, with "answered but wrong" apart
from refusals (they point at different knobs: extraction or retrieval versus the threshold).
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "realdocs-tune"
CORPORA = ("en-18f", "zh-apisix")
KIND_ORDER = ("answerable", "chinese", "english", "followup", "absent")


def fold(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def cited(answer: dict[str, Any]) -> set[str]:
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", answer["text"])}
    return {s["source"] for s in answer["sources"] if s["n"] in numbers}


def outcome(question: dict[str, Any], answer: dict[str, Any]) -> str:
    """``correct`` | ``wrong`` | ``refused`` for answerable kinds; ``handled`` | ``answered``
    for absent ones."""
    declined = answer["verdict"] != "answer"
    if question["kind"] == "absent":
        return "handled" if declined else "answered"
    if declined:
        return "refused"
    text = fold(answer["text"])
    facts = all(fold(fact) in text for fact in question["key_facts"])
    return "correct" if facts and question["gold_file"] in cited(answer) else "wrong"


def run_corpus(corpus: str, embeddings: str, work: Path, env: dict[str, str]) -> list[Any]:
    questions = DATA / corpus / "questions.jsonl"
    store = "-qdrant" if env.get("VECTOR_STORE") == "qdrant" else ""
    out = work / f"{corpus}-{embeddings}{store}.jsonl"
    environment = os.environ | env
    environment |= {
        "DOCS_DIR": str(DATA / corpus / "docs"),
        "INDEX_DIR": str(work / f"index-{corpus}-{embeddings}"),
        "EMBEDDINGS": embeddings,
    }
    environment.pop("REDIS_URL", None)  # a shared cache would serve an earlier run's answers
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "rag", "ask", "--questions", str(questions), "--out", str(out)],
        check=True,
        env=environment,
        cwd=work,
        stdout=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - started
    asked = [json.loads(line) for line in questions.read_text("utf-8").splitlines() if line]
    answers = [json.loads(line) for line in out.read_text("utf-8").splitlines() if line]
    print(f"{corpus}: {len(asked)} questions in {seconds:.0f} s (index build included)")
    return list(zip(asked, answers, strict=True))


def report(corpus: str, pairs: list[Any], show: str | None) -> None:
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    for question, answer in pairs:
        result = outcome(question, answer)
        by_kind[question["kind"]][result] += 1
        if show and result == show:
            print(f"  [{result}] {question['id']} {question['question']!r}")
            print(f"      gold {question.get('gold_file')} · {question.get('gold_heading')}")
            print(f"      facts {question.get('key_facts')}  cited {sorted(cited(answer))}")
            print("      " + answer["text"][:300].replace("\n", " ⏎ "))
    for kind in KIND_ORDER:
        counts = by_kind.get(kind)
        if not counts:
            continue
        total = sum(counts.values())
        if kind == "absent":
            print(f"  {kind:<10} refused or to review {counts['handled']:>3} of {total}")
            continue
        print(
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
    for corpus in args.corpus or CORPORA:
        env = {}
        if args.vector_store == "qdrant":
            path = args.work / f"qdrant-{corpus}-{args.embeddings}"
            env = {"VECTOR_STORE": "qdrant", "QDRANT_PATH": str(path)}
        pairs = run_corpus(corpus, args.embeddings, args.work, env)
        report(corpus, pairs, args.show)


if __name__ == "__main__":
    main()
