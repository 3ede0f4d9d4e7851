"""Scoped retrieval speed: a scope holding 10 % of the passages against an unscoped search.

    .venv/bin/python -m bench.scopes                      # 100k synthetic chunks, 300 queries
    .venv/bin/python -m bench.scopes --size 20000 --share 0.25

The corpus is :mod:`bench.retrieval`'s synthetic one (Zipf-distributed CJK text, random
384-dimension vectors, a query embedder that costs nothing), with one document in ten under
``hr/`` and the rest under ``public/``; the scope is ``hr = ["hr/**"]`` from a scopes file's
catalog. Each query is searched unscoped and scoped, alternately, so load on the machine hits
both alike; the scope's rows are computed on first use (timed separately) and then looked up,
as the pipeline does. Two index modes: dense + lexical (random vectors fused by rank, the
slowest path) and lexical only (``EMBEDDINGS=none``). The issue's bar: scoped p50 at most 20 %
above unscoped.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from bench.retrieval import DIM, RandomQueryEmbeddings, synthetic_text
from rag.chunks import Chunk
from rag.scopes.globs import compile_glob
from rag.scopes.sets import ScopeCatalog
from rag.search.index import Index
from rag.search.scoped import ScopedRows

CHUNKS_PER_DOCUMENT = 4


def corpus(size: int, share: float, rng: np.random.Generator) -> list[Chunk]:
    documents = size // CHUNKS_PER_DOCUMENT
    every = round(1 / share)
    return [
        Chunk(
            source=f"{'hr' if (i // CHUNKS_PER_DOCUMENT) % every == 0 else 'public'}/"
            f"doc-{i // CHUNKS_PER_DOCUMENT}.md",
            text=synthetic_text(rng, 400),
            n=i % CHUNKS_PER_DOCUMENT,
        )
        for i in range(documents * CHUNKS_PER_DOCUMENT)
    ]


def questions(chunks: list[Chunk], count: int, rng: np.random.Generator) -> list[str]:
    found = []
    for i in range(count):
        if i % 2:
            found.append(synthetic_text(rng, 12))
        else:
            text = chunks[int(rng.integers(0, len(chunks)))].text
            start = int(rng.integers(0, max(1, len(text) - 12)))
            found.append(text[start : start + 12])
    return found


def p50_p95(timings: list[float]) -> str:
    ordered = sorted(timings)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"p50 {statistics.median(ordered):6.2f} ms, p95 {p95:6.2f} ms"


def bench(index: Index, label: str, asked: list[str], k: int) -> None:
    scope = ScopeCatalog({"hr": (compile_glob("hr/**"),)}).of(["hr"])
    rows = ScopedRows()
    started = time.perf_counter()
    allowed = rows.rows(index.version, index.chunks, scope)
    first_ms = (time.perf_counter() - started) * 1000
    assert allowed is not None
    index.search(asked[0], k)  # warm-up
    unscoped: list[float] = []
    scoped: list[float] = []
    for question in asked:
        started = time.perf_counter()
        index.search(question, k)
        unscoped.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        hits = index.search(question, k, rows=rows.rows(index.version, index.chunks, scope))
        scoped.append((time.perf_counter() - started) * 1000)
        assert all(hit.chunk.source.startswith("hr/") for hit in hits)
    ratio = statistics.median(scoped) / statistics.median(unscoped)
    print(f"{label}: unscoped {p50_p95(unscoped)}")
    print(
        f"{label}: scoped   {p50_p95(scoped)}  ({len(allowed)} of {len(index)} chunks; "
        f"p50 {100 * (ratio - 1):+.0f} % vs unscoped; rows computed once in {first_ms:.0f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--share", type=float, default=0.10, help="the scope's share of chunks")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    rng = np.random.default_rng(args.size)
    chunks = corpus(args.size, args.share, rng)
    asked = questions(chunks, args.queries, rng)
    vectors = rng.standard_normal((len(chunks), DIM), dtype=np.float32)
    dense = Index(chunks, vectors=vectors, embeddings=RandomQueryEmbeddings(), version="dense")
    bench(dense, "dense+lexical", asked, args.k)
    del dense, vectors
    lexical = Index(chunks, vectors=None, embeddings=None, version="lexical")
    bench(lexical, "lexical only ", asked, args.k)


if __name__ == "__main__":
    main()
