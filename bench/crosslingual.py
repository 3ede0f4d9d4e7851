"""Questions in one language about documents in the other: found, and let through the gate?

    .venv/bin/python bench/crosslingual.py                  # docs/ with the bundled e5

The sample knowledge base is half Chinese, half English, and people ask in either. The set
(``bench/crosslingual/docs_crosslingual.jsonl``) holds Chinese questions whose answer is only in
an English document and English questions answered only by a Chinese one, with the file
(``gold_doc``) and a phrase of the answer (``answer``). Per question it reports whether one of
the first k passages is from that file and holds the phrase (R@1, R@5, as
``bench/followups.py`` counts), whether the first passage clears the refusal gate (answered),
and where the answer passage ranks by the dense similarity alone (the multilingual embedder is
the only signal that crosses languages: the lexical search shares no words with the question).
A measurement of a known gap, not a target: see bench/README.md, "Across languages".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import unicodedata
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.assemble import open_index  # noqa: E402
from rag.results import Hit  # noqa: E402
from rag.settings import Settings  # noqa: E402

SET = Path(__file__).parent / "crosslingual" / "docs_crosslingual.jsonl"


def fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def answers(hit: Hit, case: dict[str, str]) -> bool:
    return Path(hit.chunk.source).name == case["gold_doc"] and fold(case["answer"]) in fold(
        hit.chunk.text
    )


def first_at(hits: Sequence[Hit], case: dict[str, str]) -> int | None:
    """The rank (from 1) of the first passage that answers, if any."""
    return next((rank for rank, hit in enumerate(hits, start=1) if answers(hit, case)), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--set", type=Path, default=SET)
    args = parser.parse_args()
    index = open_index(Settings.from_env(dict(os.environ, EMBEDDINGS="e5")))
    cases = [json.loads(line) for line in args.set.read_text("utf-8").splitlines() if line]
    print(f"{len(cases)} questions over {len(index)} passages (threshold {index.min_score:.2f})")
    print(f"{'id':<10} {'rank':>5} {'dense rank':>10} {'score':>7}  answered  first source")
    totals = {"r1": 0, "r5": 0, "answered": 0, "answered right": 0, "dense top 5": 0}
    for case in cases:
        hits = index.search(case["question"], len(index))
        rank = first_at(hits, case)
        by_dense = sorted(hits, key=lambda hit: -(hit.dense or 0.0))
        dense_rank = first_at(by_dense, case)
        passed = hits[0].score >= index.min_score
        totals["r1"] += rank == 1
        totals["r5"] += rank is not None and rank <= 5
        totals["answered"] += passed
        totals["answered right"] += passed and rank == 1
        totals["dense top 5"] += dense_rank is not None and dense_rank <= 5
        print(
            f"{case['id']:<10} {rank or '-':>5} {dense_rank or '-':>10} {hits[0].score:>7.2f}"
            f"  {'yes' if passed else 'no':<8}  {Path(hits[0].chunk.source).name}"
        )
    print("  ".join(f"{name} {count / len(cases):.2f}" for name, count in totals.items()))


if __name__ == "__main__":
    main()
