"""Benchmark (not a test): how long the citation checker takes per answer, on real answers.

Reads the tuning files of ``../shared/data/attrib-tune`` (never copied; see its README) and
times exactly what the pipeline runs on a draft — :func:`rag.check.screen.screen`: the leak
check, the refusal check and every citation rule, without the optional model judge (that one
is a network call, timed by ``python -m rag check-eval`` when it is on). jieba's dictionary is
loaded first, as the pipeline does when it is built. Each answer is screened ``--repeat``
times and its fastest time kept, so a busy machine's hiccups don't count as checker time.

Run: ``.venv/bin/python -m bench.checker_latency [--data DIR] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from rag.check.screen import screen
from rag.check.support import warm_up
from rag.cli.check_eval import read_records

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "attrib-tune"
SETS = ("expertqa", "expertqa_answers", "attributionbench", "uhgeval", "uhgeval_real")


def timings_ms(path: Path, repeat: int) -> list[float]:
    found = []
    for record in read_records(path):
        hits = record.hits
        best = float("inf")
        for _ in range(repeat):
            started = time.perf_counter()
            screen(record.answer, hits, question=record.question)
            best = min(best, time.perf_counter() - started)
        found.append(best * 1000)
    return found


def _percentile(values: Sequence[float], share: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[round(share * 100) - 1]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="attrib-tune folder")
    parser.add_argument("--repeat", type=int, default=3, help="runs per answer (fastest kept)")
    args = parser.parse_args(argv)
    warm_up()
    print(f"citation checker latency per answer (fastest of {args.repeat}), model judge off")
    print(f"  {'set':<20} {'answers':>8} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    everything: list[float] = []
    for name in SETS:
        path = args.data / f"{name}.jsonl"
        if not path.exists():
            print(f"  {name:<20} missing ({path})")
            continue
        values = timings_ms(path, args.repeat)
        everything += values
        p50, p95 = _percentile(values, 0.5), _percentile(values, 0.95)
        print(f"  {name:<20} {len(values):>8} {p50:>8.1f} {p95:>8.1f} {max(values):>8.1f}")
    if everything:
        p50, p95 = _percentile(everything, 0.5), _percentile(everything, 0.95)
        print(f"  {'all':<20} {len(everything):>8} {p50:>8.1f} {p95:>8.1f} {max(everything):>8.1f}")


if __name__ == "__main__":
    main()
