"""Where the vectors live at 100k and 1M passages: in each bot process, or in Qdrant.

    .venv/bin/python -m bench.vector_stores                      # 100k, both stores, + sizing
    .venv/bin/python -m bench.vector_stores --sizes 100000 1000000
    .venv/bin/python -m bench.vector_stores --one 100000 qdrant-local   # one run (a child)
    .venv/bin/python -m bench.vector_stores --dense-only 1000000        # the dense side alone
    .venv/bin/python -m bench.vector_stores --store-only 100000         # Qdrant local mode alone

Each (size, store) runs in a process of its own so its memory is its own: synthetic passages
(bench/retrieval.py's Zipf-distributed CJK text, 4 passages a document, 1,000 documents a
folder) with seeded random 384-dimensional vectors (e5-small's size) from a fake embedder that
costs nothing, so times are the stores' own. Printed per run: the process's resident memory
after the build (and its peak), what the bot-side search structures take (lexical index, and
with Qdrant the point ids), the build time (lexical index; with Qdrant also the upsert of every
point, ``upsert``), and query p50/p95 over questions half unscoped, half scoped to half of the
folders (a payload filter inside Qdrant).

Qdrant runs in qdrant-client's local mode (no server binary here): the engine is then *inside*
the measured process, brute-force numpy with filters evaluated in Python — an upper bound on
what a bot would pay, not a server's figures. With a server the bot process holds only the
bot-side structures; the server's RAM follows Qdrant's own sizing rule (``sizing()``).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from bench.retrieval import DIM, RandomQueryEmbeddings, synthetic_text
from rag.chunks import Chunk
from rag.search.index import Index
from rag.search.lexical import LexicalIndex

PER_DOCUMENT = 4
PER_FOLDER = 1000


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def corpus(size: int) -> list[Chunk]:
    rng = np.random.default_rng(size)
    return [
        Chunk(
            source=f"f{i // (PER_DOCUMENT * PER_FOLDER)}/doc-{i // PER_DOCUMENT}.md",
            text=synthetic_text(rng, 400),
            n=i % PER_DOCUMENT,
        )
        for i in range(size)
    ]


def questions(chunks: list[Chunk], count: int) -> list[str]:
    rng = np.random.default_rng(1)
    asked = []
    for i in range(count):
        if i % 2:
            asked.append(synthetic_text(rng, 12))
        else:
            text = chunks[int(rng.integers(0, len(chunks)))].text
            start = int(rng.integers(0, max(1, len(text) - 12)))
            asked.append(text[start : start + 12])
    return asked


def half_the_folders(chunks: list[Chunk]) -> np.ndarray[Any, np.dtype[np.intp]]:
    return np.flatnonzero([int(c.source[1 : c.source.index("/")]) % 2 == 0 for c in chunks])


def run_one(size: int, store: str, count: int) -> dict[str, Any]:
    """One measurement, in this process (called in a child of its own)."""
    before = rss_mib()
    chunks = corpus(size)
    texts_mib = rss_mib() - before
    started = time.perf_counter()
    lexical = LexicalIndex([chunk.indexed_text for chunk in chunks])
    lexical_seconds = time.perf_counter() - started
    embeddings = RandomQueryEmbeddings()
    upsert = 0.0
    if store == "in-process":
        vectors = np.random.default_rng(7).standard_normal((size, DIM), dtype=np.float32)
        index = Index(chunks, vectors=vectors, embeddings=embeddings, version="b", lexical=lexical)
        del vectors
        bot_side = index.memory_bytes
    else:
        index, upsert, bot_side = qdrant_index(chunks, embeddings, lexical)
    built = time.perf_counter() - started
    scoped = half_the_folders(chunks)
    asked = questions(chunks, count)
    index.search(asked[0], 5)  # warm-up
    timings = []
    for n, question in enumerate(asked):
        started = time.perf_counter()
        index.search(question, 5, rows=scoped if n % 2 else None)
        timings.append((time.perf_counter() - started) * 1000)
    if store != "in-process":
        from rag.qdrant.connection import release_local

        release_local(Path(tempfile.gettempdir()) / "citebot-bench-qdrant")
    ordered = sorted(timings)
    return {
        "size": size,
        "store": store,
        "rss_mib": round(rss_mib() - before - texts_mib),
        "peak_mib": round(peak_mib()),
        "bot_side_mib": round(bot_side / 2**20),
        "lexical_s": round(lexical_seconds, 1),
        "upsert_s": round(upsert, 1),
        "build_s": round(built, 1),
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
        "queries": len(ordered),
    }


def qdrant_index(
    chunks: list[Chunk], embeddings: RandomQueryEmbeddings, lexical: LexicalIndex
) -> tuple[Index, float, int]:
    """The index with its vectors upserted into local mode; seconds the upsert took, and the
    bot-side bytes (lexical index and the point-id map)."""
    from qdrant_client import QdrantClient

    from rag.qdrant.connection import Connection, QdrantPlace
    from rag.qdrant.store import QdrantStore

    warnings.simplefilter("ignore")  # local mode warns past 20,000 points: measured anyway
    folder = Path(tempfile.gettempdir()) / "citebot-bench-qdrant"
    shutil.rmtree(folder, ignore_errors=True)
    connection = Connection(QdrantPlace("bench", path=folder))
    # In memory: on disk, local mode commits every point to SQLite one by one (10k points took
    # 160 s), which measures SQLite, not the search.
    connection.search_client = connection.build_client = QdrantClient(":memory:")
    store = QdrantStore(connection)
    started = time.perf_counter()
    stored = store.vectors(chunks, embeddings, embedder=embeddings.identity, version="b")
    upsert = time.perf_counter() - started
    index = Index(
        chunks, vectors=stored.vectors, embeddings=embeddings, version="b", lexical=lexical
    )
    ids = 3 * 8 * len(chunks)  # ids, their order and sorted copy (rag.qdrant.points.RowsById)
    return index, upsert, index.memory_bytes + ids


def dense_only(size: int, count: int) -> dict[str, Any]:
    """The in-process dense side alone (``--dense-only``): the matrix every bot process holds
    and one question's matrix-vector product and top 100, without building the lexical index
    (which at 1M passages takes longer than the machine could spare: see bench/README.md)."""
    before = rss_mib()
    vectors = np.random.default_rng(7).standard_normal((size, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    held = rss_mib() - before
    queries = np.random.default_rng(1).standard_normal((count + 1, DIM), dtype=np.float32)
    timings = []
    for query in queries:
        started = time.perf_counter()
        scores = vectors @ query
        top = np.argpartition(scores, -100)[-100:]
        top[np.argsort(-scores[top])]
        timings.append((time.perf_counter() - started) * 1000)
    ordered = sorted(timings[1:])
    return {
        "size": size,
        "store": "in-process, dense only",
        "rss_mib": round(held),
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
        "queries": len(ordered),
    }


def store_only(size: int, count: int) -> dict[str, Any]:
    """Qdrant local mode alone (``--store-only``): upsert every passage's point, then time the
    one request a question makes (nearest 100 under no scope or half the folders, and the
    cosines of 100 named passages). The bot's lexical side is the in-process one."""
    chunks = corpus(size)
    before = rss_mib()
    embeddings = RandomQueryEmbeddings()
    store, connection = _memory_store()
    started = time.perf_counter()
    stored = store.vectors(chunks, embeddings, embedder=embeddings.identity, version="b")
    upsert = time.perf_counter() - started
    engine = rss_mib() - before
    rng = np.random.default_rng(3)
    scoped = half_the_folders(chunks)
    timings = []
    for n in range(count + 1):
        query = np.asarray(embeddings.embed_query(""), np.float32)
        also = rng.choice(size, 100, replace=False).astype(np.intp)
        started = time.perf_counter()
        stored.vectors.dense(query, nearest=100, rows=scoped if n % 2 else None, also=also)
        timings.append((time.perf_counter() - started) * 1000)
    connection.search_client.close()
    ordered = sorted(timings[1:])
    return {
        "size": size,
        "store": "qdrant-local, store only",
        "rss_mib": round(engine),
        "upsert_s": round(upsert, 1),
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
        "queries": len(ordered),
    }


def _memory_store() -> tuple[Any, Any]:
    from qdrant_client import QdrantClient

    from rag.qdrant.connection import Connection, QdrantPlace
    from rag.qdrant.store import QdrantStore

    warnings.simplefilter("ignore")  # local mode warns past 20,000 points: measured anyway
    connection = Connection(QdrantPlace("bench", path=Path(tempfile.mkdtemp())))
    # In memory: on disk, local mode commits every point to SQLite one by one (10k points took
    # 160 s), which measures SQLite, not the search.
    connection.search_client = connection.build_client = QdrantClient(":memory:")
    return QdrantStore(connection), connection


def sizing(passages: int, *, replicas: int = 2, node_gib: int = 8) -> dict[str, Any]:
    """Qdrant's published rule: RAM ~ vectors x dimensions x 4 bytes x 1.5 (the 1.5 for the
    index, point versions and optimisation's temporary segments); scalar int8 quantization
    keeps a quarter of that in RAM (originals on disk); every replica holds a full copy."""
    full = passages * DIM * 4 * 1.5 / 2**30
    quantized = full / 4
    shards = max(1, int(np.ceil(full / (node_gib * 0.5))))
    return {
        "passages": passages,
        "ram_gib": round(full, 2),
        "ram_gib_int8": round(quantized, 2),
        "ram_with_replicas_gib": round(full * replicas, 2),
        "int8_with_replicas_gib": round(quantized * replicas, 2),
        "shards": shards,
        "replicas": replicas,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--stores", nargs="+", default=["in-process", "qdrant-local"])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--one", nargs=2, metavar=("SIZE", "STORE"))
    parser.add_argument("--dense-only", type=int, metavar="SIZE")
    parser.add_argument("--store-only", type=int, metavar="SIZE")
    args = parser.parse_args()
    if args.store_only:
        print(json.dumps(store_only(args.store_only, args.queries)))
        return
    if args.dense_only:
        print(json.dumps(dense_only(args.dense_only, args.queries)))
        return
    if args.one:
        print(json.dumps(run_one(int(args.one[0]), args.one[1], args.queries)))
        return
    for size in args.sizes:
        for store in args.stores:
            child = [sys.executable, "-m", "bench.vector_stores", "--one", str(size), store]
            child += ["--queries", str(args.queries)]
            done = subprocess.run(child, capture_output=True, text=True, check=True)
            print(done.stdout.strip().splitlines()[-1], flush=True)
    for size in args.sizes:
        print(json.dumps(sizing(size)))


if __name__ == "__main__":
    main()
