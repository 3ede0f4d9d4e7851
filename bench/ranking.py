"""The order passages are ranked in, chosen left one corpus out (gate 5's ``ranking``).

    nice .venv/bin/python -m bench.ranking --work /tmp/citebot-answerability

The refusal gate weighs four standardised signals equally (:mod:`rag.search.gate`); the order
of the passages may weigh them otherwise. For each answerable question of the four tuning
corpora (``bench.answerability``; their e5 indexes are built under ``--work``, or reused) this
reads the signals of its 40 best passages by the gate, then, for every weighting of a grid
(each signal 0, ½, 1, 1½ or 2), which passage would come first. A weighting is chosen on three
corpora — the mean share of questions whose first passage is the gold page plus the share whose
first passage holds the answer (every key fact, or one of cmrc2018's answer spans) — and
reported on the fourth, beside the shipped ranking and the gate's own order.
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np

from bench.answer_sets import CORPORA, Corpus, fold, prepare
from bench.answerability import asked, index_for
from rag.search.gate import E5, EQUAL, Weights

GRID = (0.0, 0.5, 1.0, 1.5, 2.0)
POOL = 40
"""Passages per question that any weighting chooses its first from (the gate's best)."""

Table = np.ndarray
"""Per question and candidate: the four standardised signals, gold page, holds the answer."""


def candidates(corpus: Corpus, work: Path) -> list[Table]:
    index = index_for(corpus, "full", work)
    gate = index.gate
    tables = []
    for question in corpus.questions():
        if not question.answerable:
            continue
        signals = index.signals(asked(question))
        top = np.argsort(-signals.scores(gate), kind="stable")[:POOL]
        picked = signals.subset(top)
        lexical, crossed = picked.lexical, picked.crossed
        assert picked.dense is not None
        assert crossed is not None
        dense = (picked.dense + np.float32(gate.crossing) * crossed).astype(np.float32)
        standing = picked.standing
        if standing is None:  # a language with too few passages: NaN, left out of the mean
            standing = np.full(len(top), np.nan, np.float32)
        assert gate.dense is not None
        assert gate.standing is not None
        columns = [
            gate.coverage.z(lexical.coverage),
            gate.cosine.z(lexical.cosine),
            gate.dense.z(dense),
            gate.standing.z(standing),
            [index.chunks[row].source == question.row["gold_file"] for row in top.tolist()],
            [_holds(question.row, index.chunks[row].text) for row in top.tolist()],
        ]
        tables.append(np.column_stack([np.asarray(c, np.float64) for c in columns]))
    return tables


def _holds(row: dict[str, object], text: str) -> bool:
    body = fold(text)
    spans = row.get("any_facts")
    if isinstance(spans, list) and spans:
        return any(fold(str(span)) in body for span in spans)
    facts = row.get("key_facts")
    return isinstance(facts, list) and bool(facts) and all(fold(str(f)) in body for f in facts)


def first(tables: list[Table], weights: Weights) -> tuple[float, float]:
    """The share of questions whose first passage is the gold page, and holds the answer."""
    w = np.asarray([weights.coverage, weights.cosine, weights.dense, weights.standing])
    gold = holds = 0
    for table in tables:
        z = table[:, :4]
        known = ~np.isnan(z)
        total = np.where(known, z, 0) @ w
        ranks = total / (known.astype(np.float64) @ w)
        best = int(np.argmax(ranks))
        gold += int(table[best, 4])
        holds += int(table[best, 5])
    return gold / len(tables), holds / len(tables)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/citebot-answerability"))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    corpora = [prepare(c, args.work) for c in CORPORA[:4]]
    tables = {c.name: candidates(c, args.work) for c in corpora}
    grid = [Weights(*w) for w in itertools.product(GRID, repeat=4) if w[0] + w[1] > 0]
    found = {w: {name: first(t, w) for name, t in tables.items()} for w in grid}
    print("left out   chosen on the others (coverage/cosine/dense/standing): gold page first,")
    print("           answer first — chosen | shipped | ranked by the gate's own score")
    for name in tables:
        rest = [n for n in tables if n != name]
        chosen = max(grid, key=lambda w: float(np.mean([sum(found[w][n]) for n in rest])))
        cells = [first(tables[name], w) for w in (chosen, E5.ranking, EQUAL)]
        figures = " | ".join(f"{g:.3f} / {h:.3f}" for g, h in cells)
        print(f"{name:<10} {chosen!s:<20} {figures}   ({len(tables[name])} questions)")


if __name__ == "__main__":
    main()
