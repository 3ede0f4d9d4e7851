"""What a question costs in a bot's first minutes: its lexical candidates embedded on demand.

    nice .venv/bin/python -m bench.on_demand [--docs DIR] [--questions N]

Opens the folder (default: ``../shared/data/realdocs-tune/en-18f/docs``) as a bot does before
its vectors exist — the lexical index, each question's best lexical candidates embedded when it
is asked — with a fresh INDEX_DIR, so nothing was embedded before, and searches the first N
questions of the folder's question file (each once: a repeated question's candidates are kept).
Prints the search time per question (median, p90, max), how many passages each embedded, and
the same questions' search time in full mode over the folder's stored index for comparison.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from rag.search.build import load_or_build
from rag.search.embeddings import E5Embeddings
from rag.search.index import Index

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "realdocs-tune" / "en-18f"


class Counted(E5Embeddings):
    documents = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        Counted.documents += len(texts)
        return super().embed_documents(texts)


def timed(index: Index, questions: list[str]) -> tuple[list[float], list[int]]:
    seconds, embedded = [], []
    for question in questions:
        before = Counted.documents
        started = time.perf_counter()
        index.search(question, 5)
        seconds.append(time.perf_counter() - started)
        embedded.append(Counted.documents - before)
    return seconds, embedded


def summary(name: str, seconds: list[float], embedded: list[int] | None = None) -> str:
    ordered = sorted(seconds)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    line = (
        f"{name}: median {statistics.median(seconds) * 1000:.0f} ms, p90 {p90 * 1000:.0f} ms, "
        f"max {ordered[-1] * 1000:.0f} ms"
    )
    if embedded is not None:
        line += f"; passages embedded per question: median {statistics.median(embedded):.0f}"
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, default=DATA / "docs")
    parser.add_argument("--questions-file", type=Path, default=DATA / "questions.jsonl")
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--full-index", type=Path, help="INDEX_DIR of the folder, embedded")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.questions_file.read_text("utf-8").splitlines()]
    questions = list(dict.fromkeys(row["question"] for row in rows))[: args.questions]
    embedder = Counted()
    embedder.embed_query("warm up")  # the engine's start-up is not a question's cost
    with tempfile.TemporaryDirectory() as fresh:
        index, report = load_or_build(args.docs, Path(fresh), embeddings=embedder, embed_at_most=-1)
        assert index.on_demand is not None, "a lexical start embeds on demand"
        seconds, embedded = timed(index, questions)
    print(f"{report.chunks:,} passages, {len(questions)} questions")
    print(summary("first minutes (on demand)", seconds, embedded))
    if args.full_index is not None:
        full, _ = load_or_build(args.docs, args.full_index, embeddings=embedder)
        print(summary("full mode", timed(full, questions)[0]))


if __name__ == "__main__":
    main()
