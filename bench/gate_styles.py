"""Fit the lexical gate on several corpora and question styles at once, reported per style.

    .venv/bin/python bench/gate_styles.py            # lexical phase (EMBEDDINGS=none)

One threshold must serve documents nobody here has seen, asked the way people ask. Each style
is a corpus with its questions, searched by the shipped index exactly as the pipeline searches
(the first hit's coverage and tf-idf cosine):

- ``cmrc``: ``../shared/data/cmrc2018-trial`` (encyclopaedia, questions copying its words);
- ``en-18f`` / ``zh-apisix``: ``../shared/data/realdocs-tune`` (documentation, chat questions:
  ``answerable`` against ``absent``; the cross-language and follow-up kinds are left out, the
  lexical search shares no words with the former and the latter need their first turn);
- ``docs``: ``docs/`` with ``bench/calibration_questions.jsonl``.

Each signal is standardised by the mean and standard deviation of its first-hit values over the
styles, each style weighing the same (so a large set does not decide alone). The threshold
printed maximises the mean over styles of the balanced accuracy — (answerable answered +
unanswerable refused) / 2 — among thresholds that answer every question the README shows being
answered on ``docs/`` (:data:`README_EXAMPLES`), and each style's refusals at it are printed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rag.assemble import open_index
from rag.cli.eval_data import load_corpus, load_queries
from rag.search.build import index_documents
from rag.search.gate import LEXICAL_ONLY, Standard
from rag.search.index import Index
from rag.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
README_EXAMPLES = (
    "口语课一共有几级？",
    "退费怎么算？",
    "转班怎么算",
    "转班怎么算？",
    "流利级的课程费是多少？",
    "商务级的课程费是多少？",
    "年假有几天？",
    "How often must I change my password?",
)
"""What the README shows answered on ``docs/`` (follow-ups as the rules make them standalone)."""


@dataclass
class Style:
    name: str
    coverage: np.ndarray
    cosine: np.ndarray
    refuse: np.ndarray


def first_hits(index: Index, questions: list[tuple[str, bool]], name: str) -> Style:
    coverage, cosine = [], []
    for question, _ in questions:
        hit = index.search(question, 5)[0]
        row = index.chunks.index(hit.chunk)
        scores = index._lexical.scores(question)
        coverage.append(float(scores.coverage[row]))
        cosine.append(float(scores.cosine[row]))
    refuse = np.asarray([absent for _, absent in questions])
    return Style(name, np.asarray(coverage), np.asarray(cosine), refuse)


def folder_index(docs: Path, work: Path) -> Index:
    env = {"DOCS_DIR": str(docs), "INDEX_DIR": str(work), "EMBEDDINGS": "none"}
    return open_index(Settings.from_env(env))


def styles() -> list[Style]:
    found = []
    docs, queries = (
        load_corpus(DATA / "cmrc2018-trial" / "corpus.jsonl"),
        load_queries(DATA / "cmrc2018-trial" / "queries.jsonl"),
    )
    index = index_documents(docs, embeddings=None)
    found.append(first_hits(index, [(q.question, q.gold_doc_id is None) for q in queries], "cmrc"))
    for corpus in ("en-18f", "zh-apisix"):
        folder = DATA / "realdocs-tune" / corpus
        rows = [json.loads(line) for line in (folder / "questions.jsonl").open(encoding="utf-8")]
        asked = [
            (r["question"], r["kind"] == "absent")
            for r in rows
            if r["kind"] in ("answerable", "absent")
        ]
        index = folder_index(folder / "docs", Path(f"/tmp/citebot-gate-{corpus}"))
        found.append(first_hits(index, asked, corpus))
    rows = [
        json.loads(line)
        for line in (ROOT / "bench" / "calibration_questions.jsonl").open(encoding="utf-8")
    ]
    asked = [(r["question"], r.get("source") is None) for r in rows]
    index = folder_index(ROOT / "docs", Path("/tmp/citebot-gate-docs"))
    found.append(first_hits(index, asked, "docs"))
    return found


def standard(values: list[np.ndarray]) -> Standard:
    means = [float(v.mean()) for v in values]
    spread = [float(v.var()) for v in values]
    mean = float(np.mean(means))
    # Pooled with equal weight per style: within-style variance plus the spread of the means.
    std = float(np.sqrt(np.mean(spread) + np.var(means)))
    return Standard(round(mean, 3), round(std, 3))


def main() -> None:
    found = styles()
    coverage = standard([s.coverage for s in found])
    cosine = standard([s.cosine for s in found])
    print(
        f"coverage {coverage}   cosine {cosine}   (shipped: {LEXICAL_ONLY.coverage}, "
        f"{LEXICAL_ONLY.cosine}, t {LEXICAL_ONLY.threshold})"
    )
    scores = {s.name: (coverage.z(s.coverage) + cosine.z(s.cosine)) / 2 for s in found}
    docs_index = folder_index(ROOT / "docs", Path("/tmp/citebot-gate-docs"))
    examples = first_hits(docs_index, [(q, False) for q in README_EXAMPLES], "examples")
    must_answer = (coverage.z(examples.coverage) + cosine.z(examples.cosine)) / 2
    for question, score in zip(README_EXAMPLES, must_answer, strict=True):
        print(f"  README example {score:+.2f} {question}")
    grid = np.round(np.arange(-2.0, 1.5, 0.01), 2)
    best, best_value = float(grid[0]), -1.0
    for t in grid.tolist():
        if (must_answer < t).any():
            continue
        value = float(np.mean([balanced(scores[s.name], s.refuse, t) for s in found]))
        if value > best_value:
            best, best_value = t, value
    print(f"threshold {best:+.2f} (mean balanced accuracy {best_value:.3f})")
    for s in found:
        refused = scores[s.name] < best
        print(
            f"  {s.name:<10} answerable refused {int((refused & ~s.refuse).sum()):>4} of "
            f"{int((~s.refuse).sum()):<4} unanswerable refused "
            f"{int((refused & s.refuse).sum()):>4} "
            f"of {int(s.refuse.sum()):<4} AUROC {auroc(scores[s.name], ~s.refuse):.3f}"
        )


def balanced(scores: np.ndarray, refuse: np.ndarray, t: float) -> float:
    refused = scores < t
    answered_ok = float((~refused & ~refuse).sum() / max((~refuse).sum(), 1))
    refused_ok = float((refused & refuse).sum() / max(refuse.sum(), 1))
    return (answered_ok + refused_ok) / 2 if refuse.any() else answered_ok


def auroc(scores: np.ndarray, answerable: np.ndarray) -> float:
    pos, neg = scores[answerable], scores[~answerable]
    if not len(pos) or not len(neg):
        return float("nan")
    return float((pos[:, None] > neg[None, :]).mean() + (pos[:, None] == neg[None, :]).mean() / 2)


if __name__ == "__main__":
    main()
