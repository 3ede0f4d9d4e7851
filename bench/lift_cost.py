"""What the first passage's sentence lift adds to a full-mode search (``rag.search.lift``).

    nice .venv/bin/python -m bench.lift_cost [--docs DIR] [--index DIR] [--questions N]

Opens the folder's e5 index (default: realdocs-tune en-18f, INDEX_DIR ``--index``; built there
when missing) and searches its first N questions with the shipped gate and with the same gate
without the lift, alternating question by question so load falls on both alike. Each question
is asked under a new wording each time (a counter appended: its vector is not remembered), with
the lift once with no sentence vector remembered (a page nobody asked about before) and once
with them (a page asked about before: the lift's sentences, or the offline answerer's). Prints
the medians and p90s and the median of the per-question ratio, first sight against no lift.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path

from rag.search.build import load_or_build
from rag.search.embeddings import E5Embeddings
from rag.search.index import Index
from rag.search.lift import Lifter
from rag.similarity import SentenceSimilarity

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "realdocs-tune" / "en-18f"


def seconds(index: Index, question: str) -> float:
    started = time.perf_counter()
    index.search(question, 5)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, default=DATA / "docs")
    parser.add_argument("--index", type=Path, default=Path("/tmp/citebot-lift-cost"))
    parser.add_argument("--questions", type=int, default=60)
    args = parser.parse_args()
    index, _ = load_or_build(args.docs, args.index, embeddings=E5Embeddings(), progress=True)
    plain = index.regated(replace(index.gate, lift_weight=0.0))
    assert index.gate.lifts, "the shipped e5 gate weighs a lift"
    lines = (args.docs.parent / "questions.jsonl").read_text("utf-8").splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()]
    questions = questions[: args.questions]
    index.search(questions[0], 5)  # load the model outside the timing
    lifted, unlifted, seen = [], [], []
    assert index.lifter is not None
    assert index.embeddings is not None
    for n, question in enumerate(questions):
        unlifted.append(seconds(plain, f"{question} ({n})"))
        fresh = SentenceSimilarity(index.embeddings, "bench")  # no sentence remembered
        index.lifter = Lifter(index.embeddings, index.lifter.weights, fresh)
        lifted.append(seconds(index, f"{question} [{n}]"))
        seen.append(seconds(index, f"{question} {{{n}}}"))
    ratios = [a / b for a, b in zip(lifted, unlifted, strict=True)]

    def line(name: str, values: list[float]) -> str:
        median, p90 = statistics.median(values), statistics.quantiles(values, n=10)[-1]
        return f"{name:<16} median {1000 * median:6.1f} ms  p90 {1000 * p90:6.1f} ms"

    print(f"{len(questions)} questions over {args.docs} ({len(index)} passages)")
    print(line("without lift", unlifted))
    print(line("lift, new page", lifted))
    print(line("lift, page seen", seen))
    print(f"per-question ratio with/without: median {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
