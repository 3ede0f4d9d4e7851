"""Benchmark (not a test): which cheap word signals tell a supported sentence from one its
source doesn't support, alone and learned together?

The citation checker's support rule reads one signal, the share of a sentence's content words
in the best window of what it cites. On ExpertQA that barely separates the labels (the curve in
bench/README.md), so this measures the other signals one could compute within the checker's
50 ms, on the human-labelled attrib-tune sets (``../shared/data/attrib-tune``, never copied).
Per cited English sentence, the best over the sources it cites of:

- ``window``: share of its content words in the best 3-sentence window (what ships);
- ``whole``: share of its content words anywhere in the source;
- ``bigrams`` / ``trigrams``: share of its word pairs / triples (stems, function words kept)
  found in the source: a sentence written from its source keeps its phrases;
- ``run``: the longest run of its words the source has verbatim;
- ``clause``: the weakest of its clauses (cut at commas, "and", "which", ...) by ``window``,
  for a sentence whose second half the source lacks.

An answer takes its weakest sentence. For each signal and set it prints ROC AUC (supported
above unsupported) and the unsupported answers caught when 10 % of the supported are flagged;
then the same for a logistic regression over all of them, scored out of fold (5 folds by
question, so no question's sentences train the model that judges them).

Run: ``.venv/bin/python -m bench.checker_signals [--data DIR] [--sets expertqa,...]`` (seconds).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from bench.checker_similarity import DEFAULT_DATA, FALSE_ALARM, auc, catch_at
from rag.check.coverage import cited_sentences
from rag.check.support import MIN_CONTENT_WORDS, Passage, content_words
from rag.cli.check_eval import Record, read_records
from rag.language import detect_language
from rag.markers import MARKER

SIGNALS = ("window", "whole", "bigrams", "trigrams", "run", "clause")
FOLDS = 5
L2 = 1.0
MAX_RUN = 12
_TOKEN = re.compile(r"[a-z0-9]+")
_CLAUSE = re.compile(
    r"[,;:()]|\b(?:and|but|which|while|whereas|such as|including|because|although)\b"
)


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _grams(tokens: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def _share(sentence: Sequence[str], source: Sequence[str], n: int) -> float:
    wanted = [tuple(sentence[i : i + n]) for i in range(len(sentence) - n + 1)]
    held = _grams(source, n)
    return sum(gram in held for gram in wanted) / len(wanted) if wanted else 1.0


def _run(sentence: Sequence[str], source: Sequence[str]) -> int:
    longest = 0
    for n in range(1, MAX_RUN + 1):
        if not _grams(sentence, n) & _grams(source, n):
            break
        longest = n
    return longest


def _window(passage: Passage, wanted: frozenset[str]) -> float:
    return len(passage.best(wanted).held(wanted)) / len(wanted)


def sentence_signals(plain: str, sources: Sequence[str]) -> dict[str, float] | None:
    """The signals of one English sentence against the sources it cites; ``None`` when it is
    too thin to judge (as the checker leaves it)."""
    wanted = content_words(plain, "en")
    if len(wanted) < MIN_CONTENT_WORDS:
        return None
    passages = [Passage(text, "en") for text in sources]
    words = _tokens(plain)
    clauses = [c for c in (content_words(part, "en") for part in _CLAUSE.split(plain)) if c]
    best: dict[str, float] = dict.fromkeys(SIGNALS, 0.0)
    for text, passage in zip(sources, passages, strict=True):
        source_words = _tokens(text)
        whole = content_words(text, "en")
        found = {
            "window": _window(passage, wanted),
            "whole": len(wanted & whole) / len(wanted),
            "bigrams": _share(words, source_words, 2),
            "trigrams": _share(words, source_words, 3),
            "run": float(_run(words, source_words)),
            "clause": min(_window(passage, clause) for clause in clauses),
        }
        best = {name: max(best[name], found[name]) for name in SIGNALS}
    return best


def answer_signals(record: Record) -> dict[str, float] | None:
    """The weakest judged sentence's signals, each taken on its own."""
    texts = [hit.chunk.text for hit in record.hits]
    weakest: dict[str, float] | None = None
    for text, refs in cited_sentences(record.answer, len(texts)):
        plain = MARKER.sub("", text)
        if detect_language(plain) != "en":
            continue
        found = sentence_signals(plain, [texts[n - 1] for n in refs])
        if found is None:
            continue
        weakest = found if weakest is None else {k: min(weakest[k], found[k]) for k in SIGNALS}
    return weakest


def _fit(features: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """L2-regularised logistic regression weights (the last one the intercept)."""
    x = np.c_[features, np.ones(len(features))]

    def loss(w: np.ndarray) -> float:
        p = 1 / (1 + np.exp(-(x @ w)))
        eps = 1e-9
        data = -np.mean(labels * np.log(p + eps) + (1 - labels) * np.log(1 - p + eps))
        return float(data + L2 * np.sum(w[:-1] ** 2) / len(x))

    return np.asarray(minimize(loss, np.zeros(x.shape[1]), method="L-BFGS-B").x)


def out_of_fold(features: np.ndarray, labels: np.ndarray, groups: Sequence[str]) -> np.ndarray:
    """Each answer's "supported" score from a model that never saw its question."""
    names = sorted(set(groups))
    fold_of = {
        name: i % FOLDS for i, name in enumerate(np.random.default_rng(0).permutation(names))
    }
    folds = np.array([fold_of[g] for g in groups])
    z = (features - features.mean(0)) / (features.std(0) + 1e-9)
    scores = np.zeros(len(labels))
    for k in range(FOLDS):
        w = _fit(z[folds != k], labels[folds != k].astype(float))
        scores[folds == k] = -(np.c_[z[folds == k], np.ones((folds == k).sum())] @ w)
    return scores


def report(name: str, path: Path) -> None:
    rows, labels, groups = [], [], []
    for record in read_records(path):
        found = answer_signals(record) if record.label is not None else None
        if found is not None:
            rows.append([found[s] for s in SIGNALS])
            labels.append(record.label == "unsupported")
            groups.append(record.question)
    unsupported = np.array(labels)
    print(f"{name}: {len(labels)} answers with a judged English sentence")
    if unsupported.all() or not unsupported.any():
        print("  needs both labels; skipped")
        return
    features = np.array(rows)
    columns = {s: features[:, i] for i, s in enumerate(SIGNALS)}
    columns["all, learned"] = out_of_fold(features, unsupported, groups)
    for label, score in columns.items():
        print(
            f"  {label:<13} AUC {auc(score, unsupported):.3f}   "
            f"catch at {FALSE_ALARM:.0%} FA {catch_at(score, unsupported):.1%}"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sets", default="expertqa,attributionbench")
    args = parser.parse_args(argv)
    for name in args.sets.split(","):
        report(name, args.data / f"{name}.jsonl")


if __name__ == "__main__":
    main()
