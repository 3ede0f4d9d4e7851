"""Issue 38's speed and quality figures, before and after, in one run on one machine.

    git archive main | (mkdir -p /tmp/before && tar -x -C /tmp/before)   # the tree to compare
    .venv/bin/python -m bench.bigfolder make /tmp/bigfolder-docs           # for start-up
    nice .venv/bin/python -m bench.speed --before /tmp/before --docs /tmp/bigfolder-docs

Each figure is measured for both trees in alternating rounds (before, after, before, ...), so
both see the same load; printed are medians and the median of the per-round ratios, with the
load average. "before" runs the other checkout's code with this interpreter (its e5: the numpy
engine); "after" is this checkout (onnxruntime).

1. **CMRC questions** (``python -m rag eval`` on ``../shared/data/cmrc2018-trial``, both trees):
   query latency p50/p95 end to end (the question embedded, both searches, the gate), answer
   and document Recall@1, refusal F1. The passages' vectors are cached by a first, untimed run.
2. **Paraphrases** (``bench/paraphrases``, 60 LCQMC-style question pairs written here): document
   Recall@1 and latency, ``EMBEDDINGS=e5``.
3. **Passages per second** (in this process): the numpy engine against the onnxruntime one on a
   fixed sample of passages from cmrc2018-trial and realdocs-tune as ``rag index`` sends them
   (batches of :data:`~rag.search.embedding_run.BATCH`, every core), wall clock and CPU.
4. **Start-up**: ``python -m rag ask`` on an unchanged folder, wall seconds from start to exit,
   each tree on its own INDEX_DIR prepared by an untimed first run: the tree's own ``docs/``
   (every passage embedded, so the question is embedded too) and ``--docs`` (a large folder
   whose vectors are missing: answered lexically).
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.embedding_speed import passages
from rag.search.embedding_run import BATCH
from rag.search.embeddings import E5Embeddings

ROOT = Path(__file__).resolve().parents[1]
DATA = next(p / "shared" / "data" for p in ROOT.parents if (p / "shared").is_dir())
EVAL_FIGURES = (
    "latency_ms_p50",
    "latency_ms_p95",
    "answer_recall@1",
    "doc_recall@1",
    "refusal_f1",
)

Row = tuple[str, float, float, float]
"""A figure's name, its median before and after, and the median of the per-round ratios."""


def load() -> str:
    return "load " + " ".join(f"{n:.1f}" for n in os.getloadavg())


def _python(root: Path, args: list[str], env: dict[str, str] | None = None) -> str:
    environment = {**os.environ, "PYTHONPATH": str(root), **(env or {})}
    done = subprocess.run(
        [sys.executable, *args], cwd=root, env=environment, capture_output=True, text=True
    )
    if done.returncode != 0:
        msg = f"{args} in {root} failed: {done.stderr[-2000:]}"
        raise RuntimeError(msg)
    return done.stdout


def evaluate(root: Path, corpus: Path, queries: Path, work: Path) -> dict[str, float]:
    out = _python(
        root,
        [
            "-m", "rag", "eval", "--corpus", str(corpus), "--queries", str(queries),
            "--out", str(work / "out.jsonl"), "--embeddings", "e5",
            "--cache-dir", str(work / "vectors"),
        ],
    )  # fmt: skip
    figures = {}
    for line in out.splitlines():
        name, _, value = line.partition(" ")
        if name in EVAL_FIGURES:
            figures[name] = float(value)
    return figures


def paired(
    name: str,
    rounds: int,
    before: Callable[[], dict[str, float]],
    after: Callable[[], dict[str, float]],
) -> list[Row]:
    """Alternating rounds of both; a row per figure."""
    seen: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    before(), after()  # untimed: caches, vectors, the machine's graph files
    for _ in range(rounds):
        seen["before"].append(before())
        seen["after"].append(after())
    print(f"  {name}: {rounds} rounds, {load()}", flush=True)
    rows = []
    for figure in seen["before"][0]:
        old = [r[figure] for r in seen["before"]]
        new = [r[figure] for r in seen["after"]]
        if not any(old + new):
            continue  # e.g. refusal F1 on a set without questions to refuse
        ratios = [n / o if o else float("nan") for o, n in zip(old, new, strict=True)]
        rows.append(
            (figure, statistics.median(old), statistics.median(new), statistics.median(ratios))
        )
    return rows


def embedding_rate(engine: str, texts: list[str]) -> dict[str, float]:
    e5 = E5Embeddings(engine=engine)  # type: ignore[arg-type]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    wall, cpu = time.perf_counter(), usage.ru_utime + usage.ru_stime
    for start in range(0, len(texts), BATCH):
        e5.embed_documents(texts[start : start + BATCH])
    wall = time.perf_counter() - wall
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu
    return {
        "passages/s (wall, 2 cores)": len(texts) / wall,
        "passages per CPU-second": len(texts) / cpu,
    }


def ask_seconds(root: Path, docs: Path, index: Path, label: str) -> dict[str, float]:
    started = time.perf_counter()
    _python(
        root,
        ["-m", "rag", "ask", "年假怎么算？"],
        {"DOCS_DIR": str(docs), "INDEX_DIR": str(index), "EMBEDDINGS": "e5"},
    )
    return {f"rag ask, unchanged {label} (s)": time.perf_counter() - started}


def ask_rows(
    trees: dict[str, Path], work: dict[str, Path], docs: Path | None, rounds: int
) -> list[Row]:
    """Each tree's own docs/ (every passage embedded: the question is, too) and ``docs``
    (a large folder: the first run embeds a few passages, later ones answer lexically)."""
    folders = {"docs/ (e5)": None} | ({} if docs is None else {f"{docs.name} (lexical)": docs})
    rows: list[Row] = []
    for label, folder in folders.items():
        before, after = (
            functools.partial(
                ask_seconds, trees[t], folder or trees[t] / "docs", work[t] / label, label
            )
            for t in ("before", "after")
        )
        rows += paired(f"rag ask {label}", rounds, before, after)
    return rows


def eval_rows(trees: dict[str, Path], work: dict[str, Path], name: str, rounds: int) -> list[Row]:
    corpus, queries = {
        "cmrc": (DATA / "cmrc2018-trial/corpus.jsonl", DATA / "cmrc2018-trial/queries.jsonl"),
        "paraphrases": (
            ROOT / "bench/paraphrases/corpus.jsonl",
            ROOT / "bench/paraphrases/queries.jsonl",
        ),
    }[name]
    for folder in work.values():
        (folder / name).mkdir()
    before, after = (
        lambda: evaluate(trees["before"], corpus, queries, work["before"] / name),
        lambda: evaluate(trees["after"], corpus, queries, work["after"] / name),
    )
    return [
        (f"{name}: {figure}", old, new, ratio)
        for figure, old, new, ratio in paired(name, rounds, before, after)
    ]


def passage_rows(rounds: int, sample: int) -> list[Row]:
    texts = [c.dense_text for c in random.Random(7).sample(passages(), sample)]
    rate = paired(
        "passages",
        rounds,
        lambda: embedding_rate("numpy", texts),
        lambda: embedding_rate("onnx", texts),
    )
    _, old, new, ratio = next(row for row in rate if row[0].startswith("passages/s"))
    return [
        *rate,
        ("36k passages to full quality (min)", 36000 / old / 60, 36000 / new / 60, 1 / ratio),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the checkout to compare")
    parser.add_argument("--docs", type=Path, help="a folder for rag ask (bench.bigfolder make)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sample", type=int, default=48, help="passages a round")
    parser.add_argument(
        "--only", choices=["cmrc", "paraphrases", "passages", "ask"], action="append"
    )
    args = parser.parse_args()
    wanted = args.only or ["cmrc", "paraphrases", "passages", "ask"]
    trees = {"before": args.before.resolve(), "after": ROOT}
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench-speed-") as scratch:
        work = {name: Path(scratch) / name for name in trees}
        for folder in work.values():
            folder.mkdir()
        for name in ("cmrc", "paraphrases"):
            if name in wanted:
                rows += eval_rows(trees, work, name, args.rounds)
        if "passages" in wanted:
            rows += passage_rows(args.rounds, args.sample)
        if "ask" in wanted:
            rows += ask_rows(trees, work, args.docs, max(args.rounds, 5))
    print(f"\n{'figure':<44} {'before':>10} {'after':>10} {'after/before':>13}")
    for name, old, new, ratio in rows:
        print(f"{name:<44} {old:>10.3f} {new:>10.3f} {ratio:>12.2f}x")


if __name__ == "__main__":
    main()
