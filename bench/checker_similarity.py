"""Benchmark (not a test): would the bundled e5 embedder help the checker judge claim support?

The citation-checker issue asks for the similarity of a sentence to its cited passage as a
support signal. This measures it against what the checker uses, on the human-labelled
attrib-tune sets (``../shared/data/attrib-tune``, never copied): for each answer, every cited
sentence's best window in each source it cites (the window the support rule reads, from
:class:`rag.check.support.Passage`) is scored two ways — share of the sentence's content words
the window holds, and e5 cosine of ``query: sentence`` with ``passage: window`` — and the
answer takes its weakest sentence. It prints, per score: ROC AUC (supported above
unsupported), the catch at a 10 % false alarm, and for a z-score mix of both; and the seconds
spent per sentence on e5.

Run: ``.venv/bin/python -m bench.checker_similarity [--data DIR] [--sets expertqa,...]``
(0.4-0.7 s per sentence on the 2-core machine: 4-7 minutes for ExpertQA, 10-16 for
AttributionBench).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rag.check.coverage import cited_sentences
from rag.check.support import MIN_CONTENT_WORDS, Passage, content_words
from rag.cli.check_eval import read_records
from rag.language import detect_language
from rag.markers import MARKER
from rag.search.embeddings import E5Embeddings

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "attrib-tune"
FALSE_ALARM = 0.10
WINDOW_CHARS = 1500
"""e5 reads 512 tokens; a window of three web-page sentences rarely needs more."""


def scores(path: Path, e5: E5Embeddings) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Per labelled answer: is it unsupported, its weakest e5 score, its weakest coverage."""
    unsupported, similarity, coverage, sentences = [], [], [], 0
    for record in read_records(path):
        if record.label is None:
            continue
        sources = [hit.chunk.text for hit in record.hits]
        weakest_sim, weakest_cov = 1.0, 1.0
        for text, refs in cited_sentences(record.answer, len(sources)):
            plain = MARKER.sub("", text)
            language = detect_language(plain)
            wanted = content_words(plain, language)
            if len(wanted) < MIN_CONTENT_WORDS:
                continue
            sentences += 1
            query = np.asarray(e5.embed_query(plain))
            best_sim, best_cov = -1.0, 0.0
            for n in refs:
                window = Passage(sources[n - 1], language).best(wanted)
                vector = np.asarray(e5.embed_documents([window.text[:WINDOW_CHARS]])[0])
                best_sim = max(best_sim, float(query @ vector))
                best_cov = max(best_cov, len(window.held(wanted)) / len(wanted))
            weakest_sim, weakest_cov = min(weakest_sim, best_sim), min(weakest_cov, best_cov)
        unsupported.append(record.label == "unsupported")
        similarity.append(weakest_sim)
        coverage.append(weakest_cov)
    return np.array(unsupported), np.array(similarity), np.array(coverage), sentences


def auc(score: np.ndarray, unsupported: np.ndarray) -> float:
    """Chance that a supported answer scores above an unsupported one (ties count half)."""
    good, bad = score[~unsupported], score[unsupported]
    above = (good[:, None] > bad[None, :]).mean()
    tied = (good[:, None] == bad[None, :]).mean()
    return float(above + tied / 2)


def catch_at(score: np.ndarray, unsupported: np.ndarray) -> float:
    """Share of unsupported answers below the threshold that flags FALSE_ALARM of the others."""
    threshold = np.sort(score[~unsupported])[int(FALSE_ALARM * (~unsupported).sum())]
    return float((score[unsupported] < threshold).mean())


def report(name: str, path: Path, e5: E5Embeddings) -> None:
    started = time.perf_counter()
    unsupported, similarity, coverage, sentences = scores(path, e5)
    seconds = time.perf_counter() - started
    print(f"{name}: {len(unsupported)} answers, {sentences} sentences judged")
    if unsupported.all() or not unsupported.any():
        print("  needs both labels for AUC and catch; skipped")
        return
    z = [(s - s.mean()) / (s.std() or 1.0) for s in (similarity, coverage)]
    rows = {"e5 similarity": similarity, "word coverage": coverage}
    rows |= {f"mix {w:.1f}·e5": w * z[0] + (1 - w) * z[1] for w in (0.3, 0.5, 0.7)}
    for label, score in rows.items():
        print(
            f"  {label:<14} AUC {auc(score, unsupported):.3f}   "
            f"catch at {FALSE_ALARM:.0%} FA {catch_at(score, unsupported):.1%}"
        )
    print(f"  {seconds / max(sentences, 1):.2f} s per sentence (e5 and reading)")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sets", default="expertqa,attributionbench")
    args = parser.parse_args(argv)
    e5 = E5Embeddings()
    for name in args.sets.split(","):
        report(name, args.data / f"{name}.jsonl", e5)


if __name__ == "__main__":
    main()
