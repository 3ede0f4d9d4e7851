"""Retrieval speed and memory: synthetic corpora at scale, and the real model on docs/.

    .venv/bin/python bench/retrieval.py                   # 10k and 100k synthetic chunks
    .venv/bin/python bench/retrieval.py --sizes 10000     # just one size
    .venv/bin/python bench/retrieval.py --e5              # real e5 query latency over docs/

Synthetic chunks are ~400 characters of Zipf-distributed CJK characters with some Latin words,
so term statistics look like real Chinese text (a few very common characters, a long tail).
Dense vectors come from a seeded random generator (384 dimensions, like e5-small) and are handed
to :class:`rag.search.index.Index` directly; queries embed with a fake that costs nothing, so the
numbers are the index's own cost: BM25 + coverage + cosine over the lexical matrix, one
matrix-vector product, fusion and the gate. Queries are 12-character spans of random chunks
(answerable) and fresh random text (unanswerable), half each.

``--e5`` opens the index of DOCS_DIR (``docs/``) with the bundled e5 model and times full
searches including the query embedding, for the sample questions in
``bench/calibration_questions.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import time
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from rag.chunks import Chunk
from rag.search.build import load_or_build
from rag.search.embeddings import E5Embeddings
from rag.search.index import Index

DIM = 384
CJK = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
WORDS = ["policy", "refund", "leave", "vpn", "laptop", "invoice", "level", "course", "fee"]


class RandomQueryEmbeddings(Embeddings):
    """Seeded random unit vectors: costs ~nothing, so timings are the index's alone."""

    identity = "bench-random-384"

    def __init__(self, seed: int = 7) -> None:
        self._rng = np.random.default_rng(seed)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        vector = self._rng.standard_normal(DIM).astype(np.float32)
        return (vector / np.linalg.norm(vector)).tolist()  # type: ignore[no-any-return]


def synthetic_text(rng: np.random.Generator, length: int) -> str:
    ranks = np.minimum(rng.zipf(1.3, size=length), len(CJK)) - 1
    chars = [CJK[r] for r in ranks]
    for position in rng.integers(0, length, size=length // 40):
        chars[position] = f" {WORDS[int(position) % len(WORDS)]} "
    return "".join(chars)


def synthetic_index(size: int, rng: np.random.Generator) -> tuple[Index, float]:
    chunks = [
        Chunk(source=f"doc-{i // 4}.md", text=synthetic_text(rng, 400), n=i % 4, title="")
        for i in range(size)
    ]
    vectors = rng.standard_normal((size, DIM), dtype=np.float32)
    started = time.perf_counter()
    index = Index(chunks, vectors=vectors, embeddings=RandomQueryEmbeddings(), version="bench")
    return index, time.perf_counter() - started


def time_queries(index: Index, questions: list[str], k: int = 5) -> list[float]:
    index.search(questions[0], k)  # warm-up
    timings = []
    for question in questions:
        started = time.perf_counter()
        index.search(question, k)
        timings.append((time.perf_counter() - started) * 1000)
    return timings


def describe(timings: list[float]) -> str:
    ordered = sorted(timings)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"p50 {statistics.median(ordered):.1f} ms, p95 {p95:.1f} ms ({len(ordered)} queries)"


def bench_synthetic(size: int, n_queries: int) -> None:
    rng = np.random.default_rng(size)
    index, build_seconds = synthetic_index(size, rng)
    questions = []
    for i in range(n_queries):
        if i % 2:
            questions.append(synthetic_text(rng, 12))
        else:
            text = index.chunks[int(rng.integers(0, size))].text
            start = int(rng.integers(0, max(1, len(text) - 12)))
            questions.append(text[start : start + 12])
    timings = time_queries(index, questions)
    print(
        f"{size:>7} chunks: build {build_seconds:.1f} s, index memory "
        f"{index.memory_bytes / 2**20:.0f} MiB (dense {size * DIM * 4 / 2**20:.0f} MiB), "
        f"query {describe(timings)}"
    )


def bench_e5(docs: Path, index_dir: Path, questions_file: Path, repeat: int) -> None:
    index, _ = load_or_build(docs, index_dir, embeddings=E5Embeddings())
    lines = questions_file.read_text("utf-8").splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()]
    timings = time_queries(index, questions * repeat)
    print(f"e5 over {docs} ({len(index)} chunks), incl. query embedding: {describe(timings)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--e5", action="store_true", help="time the real model over --docs")
    parser.add_argument("--docs", type=Path, default=Path("docs"))
    parser.add_argument("--index-dir", type=Path, default=Path(".citebot/bench-index"))
    parser.add_argument(
        "--questions", type=Path, default=Path(__file__).with_name("calibration_questions.jsonl")
    )
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    if args.e5:
        bench_e5(args.docs, args.index_dir, args.questions, args.repeat)
        return
    for size in args.sizes:
        bench_synthetic(size, args.queries)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak process memory {peak:.0f} MiB")


if __name__ == "__main__":
    main()
