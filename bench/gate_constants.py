"""Measure the refusal gate's constants on a labelled set (how rag/search/gate.py's numbers
were made).

    .venv/bin/python bench/gate_constants.py --corpus ../shared/data/cmrc2018-trial/corpus.jsonl \\
        --queries ../shared/data/cmrc2018-trial/queries.jsonl --embeddings e5

For every question the shipped index (current splitter, fusion and embedder) is searched; the
first hit's three similarities — lexical coverage, lexical tf-idf cosine, dense cosine — are
collected. Printed: each signal's mean and standard deviation over all questions (the
``Standard`` constants), each signal's AUROC for "answerable" and that of the gate score built
from the new constants, and two thresholds on that score: the one maximising the F1 of refusing
on this very set (over-fits: it sits on one question's score) and the one maximising a
*smoothed* F1, where each question counts as refused with probability Φ((t − score) / h),
h = Silverman's bandwidth of the scores. The smoothed optimum moves little when a few questions
change, which is what a default for other corpora needs; rag/search/gate.py ships it, rounded.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from rag.cli.eval_data import load_corpus, load_queries
from rag.search.build import index_documents
from rag.search.embeddings import CachedEmbeddings, E5Embeddings, HashingEmbeddings
from rag.search.gate import GateModel, Standard, gate_for
from rag.search.lexical import LexicalIndex


def auroc(scores: np.ndarray, answerable: np.ndarray) -> float:
    pos, neg = scores[answerable], scores[~answerable]
    greater = (pos[:, None] > neg[None, :]).mean()
    equal = (pos[:, None] == neg[None, :]).mean()
    return float(greater + equal / 2)


def f1_at(threshold: float, scores: np.ndarray, refuse: np.ndarray) -> float:
    refused = scores < threshold
    tp = float((refused & refuse).sum())
    return 2 * tp / (2 * tp + float((refused & ~refuse).sum()) + float((~refused & refuse).sum()))


def smoothed_f1(threshold: float, scores: np.ndarray, refuse: np.ndarray, h: float) -> float:
    erf = np.vectorize(math.erf)
    p_refused = 0.5 * (1 + erf((threshold - scores) / (h * math.sqrt(2))))
    tp = float((p_refused * refuse).sum())
    fp = float((p_refused * ~refuse).sum())
    fn = float(((1 - p_refused) * refuse).sum())
    return 2 * tp / (2 * tp + fp + fn)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--queries", type=Path, required=True)
    parser.add_argument("--embeddings", choices=["e5", "hashing", "none"], default="e5")
    parser.add_argument("--cache-dir", type=Path, default=Path(".citebot/index/eval"))
    args = parser.parse_args()
    docs, queries = load_corpus(args.corpus), load_queries(args.queries)
    inner: Embeddings | None = None
    if args.embeddings == "e5":
        inner = E5Embeddings()
    elif args.embeddings == "hashing":
        inner = HashingEmbeddings()
    embeddings = None if inner is None else CachedEmbeddings(inner, args.cache_dir)
    index = index_documents(docs, embeddings=embeddings)
    if embeddings is not None:
        embeddings.save()
    lexical = LexicalIndex([chunk.indexed_text for chunk in index.chunks])
    row_of = {chunk.id: row for row, chunk in enumerate(index.chunks)}
    signals: dict[str, list[float]] = {"coverage": [], "cosine": [], "dense": []}
    in_top5: list[bool] = []
    for query in queries:
        hits = index.search(query.question, 5)
        row = row_of[hits[0].chunk.id]
        signals["coverage"].append(float(lexical.scores(query.question).coverage[row]))
        signals["cosine"].append(hits[0].lexical or 0.0)
        signals["dense"].append(hits[0].dense or 0.0)
        in_top5.append(any(hit.chunk.document == query.gold_doc_id for hit in hits))
    refuse = np.asarray([query.gold_doc_id is None for query in queries])
    arrays = {name: np.asarray(values, np.float32) for name, values in signals.items()}
    standards = {}
    for name, values in arrays.items():
        if embeddings is None and name == "dense":
            continue
        standards[name] = Standard(round(float(values.mean()), 3), round(float(values.std()), 3))
        print(f"{name:<9} {standards[name]}  AUROC {auroc(values, ~refuse):.4f}")
    shipped = gate_for(None if embeddings is None else embeddings.identity)
    measured = replace(
        shipped,
        coverage=standards["coverage"],
        cosine=standards["cosine"],
        dense=standards.get("dense"),
    )
    report(measured, arrays, refuse, np.asarray(in_top5), embeddings is not None)


def report(
    gate: GateModel,
    arrays: dict[str, np.ndarray],
    refuse: np.ndarray,
    top5: np.ndarray,
    dense: bool,
) -> None:
    scores = gate.scores(arrays["coverage"], arrays["cosine"], arrays["dense"] if dense else None)
    print(f"gate score AUROC {auroc(scores, ~refuse):.4f} with {gate}")
    grid = np.round(np.arange(-1.5, 1.0, 0.01), 2)
    raw = [f1_at(t, scores, refuse) for t in grid]
    h = 1.06 * float(scores.std()) * len(scores) ** -0.2
    smooth = [smoothed_f1(t, scores, refuse, h) for t in grid]
    best_raw, best_smooth = grid[int(np.argmax(raw))], grid[int(np.argmax(smooth))]
    print(f"F1-max threshold {best_raw:+.2f} (F1 {max(raw):.4f})")
    print(f"smoothed-F1-max threshold {best_smooth:+.2f} (bandwidth {h:.3f})")
    for t in sorted({best_raw, best_smooth, *np.round(np.arange(-0.6, 0.01, 0.1), 2)}):
        refused = scores < t
        e2e = ((~refuse & ~refused & top5).sum() + (refuse & refused).sum()) / len(scores)
        false_refusals = (refused & ~refuse).sum() / (~refuse).sum()
        print(
            f"  t {t:+.2f}: refusal F1 {f1_at(t, scores, refuse):.4f}, end-to-end {e2e:.4f}, "
            f"false refusals {false_refusals:.3f}"
        )


if __name__ == "__main__":
    main()
