"""``python -m rag eval``: retrieval and the refusal gate measured on a labelled set.

Formats are the contract in DESIGN.md ("Eval file formats"). Every corpus line becomes one
:class:`SourceDocument` (``doc_id`` = ``source`` = its id) and is chunked and indexed exactly as
the product indexes DOCS_DIR. Embeddings are cached by chunk content under
``INDEX_DIR/eval`` (or ``--cache-dir``), so a rerun only embeds the questions. The threshold
is the shipped default of the gate (never tuned per run) unless ``--min-score`` or
``MIN_SCORE`` says otherwise; calibration files are ignored here on purpose.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rag.assemble import embeddings_from_settings, vector_store_from_settings
from rag.cli.eval_data import EvalInputError, Query, load_corpus, load_queries
from rag.cli.scoping import add_scope_argument, chosen_scope
from rag.results import Hit
from rag.scopes.sets import EVERYTHING, ScopeSet, UnknownScope
from rag.search.build import index_documents
from rag.search.calibration import refusal_metrics
from rag.search.embeddings import CachedEmbeddings
from rag.search.index import Index
from rag.search.scoped import ScopedRows
from rag.settings import Settings, SettingsError

HITS_PER_QUERY = 10
"""Written per query even when refused: MRR@10 and recall never depend on the gate."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("eval", help="measure retrieval and refusals on a labelled set")
    parser.add_argument("--corpus", type=Path, required=True, help="JSONL {id, text, title?}")
    parser.add_argument(
        "--queries", type=Path, required=True, help="JSONL {id, question, gold_doc_id, answers?}"
    )
    parser.add_argument("--out", type=Path, required=True, help="JSONL written, one per query")
    parser.add_argument("--min-score", type=float, help="threshold (default: the gate's default)")
    parser.add_argument(
        "--embeddings", choices=["none", "e5"], help="dense embedder (default: EMBEDDINGS)"
    )
    parser.add_argument("--cache-dir", type=Path, help="embedding cache (default: INDEX_DIR/eval)")
    add_scope_argument(
        parser,
        "search only the corpus ids this scope of SCOPES_FILE matches; questions whose gold "
        "document lies outside count as ones to refuse",
    )
    parser.set_defaults(func=run)


def fold(text: str) -> str:
    """NFKC, case and whitespace folding for answer matching."""
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True, slots=True)
class Outcome:
    query: Query
    hits: list[Hit]
    refused: bool
    latency_ms: float

    def doc_rank(self) -> int | None:
        for rank, hit in enumerate(self.hits, start=1):
            if hit.chunk.document == self.query.gold_doc_id:
                return rank
        return None

    def answer_rank(self) -> int | None:
        answers = [fold(a) for a in self.query.answers if fold(a)]
        for rank, hit in enumerate(self.hits, start=1):
            text = fold(hit.chunk.text)
            if any(answer in text for answer in answers):
                return rank
        return None

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.query.id,
            "refused": self.refused,
            "hits": [
                {
                    "doc_id": hit.chunk.document,
                    "score": round(hit.score, 6),
                    "text": hit.chunk.text,
                    "lexical": hit.lexical,
                    "dense": hit.dense,
                    "rank": hit.rank,
                }
                for hit in self.hits
            ],
            "latency_ms": round(self.latency_ms, 3),
        }


def _found(outcome: Outcome, cut: int) -> bool:
    rank = outcome.doc_rank()
    return rank is not None and rank <= cut


def metrics(outcomes: Sequence[Outcome]) -> dict[str, float]:
    answerable = [o for o in outcomes if o.query.gold_doc_id is not None]
    with_answers = [o for o in answerable if o.query.answers]
    doc_ranks = [o.doc_rank() for o in answerable]
    answer_ranks = [o.answer_rank() for o in with_answers]

    def share(ranks: Sequence[int | None], cut: int) -> float:
        return sum(1 for r in ranks if r is not None and r <= cut) / len(ranks) if ranks else 0.0

    refusals = refusal_metrics(
        [o.refused for o in outcomes], [o.query.gold_doc_id is None for o in outcomes]
    )
    correct = sum(
        1
        for o in outcomes
        if (o.refused if o.query.gold_doc_id is None else not o.refused and _found(o, 5))
    )
    first_lengths = [len(o.hits[0].chunk.text) for o in outcomes if o.hits]
    latencies = [o.latency_ms for o in outcomes]
    return {
        "queries": len(outcomes),
        "answerable": len(answerable),
        "doc_recall@1": share(doc_ranks, 1),
        "doc_recall@5": share(doc_ranks, 5),
        "doc_mrr@10": (
            sum(1 / r for r in doc_ranks if r is not None and r <= 10) / len(doc_ranks)
            if doc_ranks
            else 0.0
        ),
        "answer_recall@1": share(answer_ranks, 1),
        "answer_recall@5": share(answer_ranks, 5),
        "refusal_precision": refusals.precision,
        "refusal_recall": refusals.recall,
        "refusal_f1": refusals.f1,
        "false_refusal_rate": refusals.false_refusal_rate,
        "answered_unanswerable_rate": refusals.answered_unanswerable_rate,
        "end_to_end_accuracy": correct / len(outcomes) if outcomes else 0.0,
        "first_source_chars_median": statistics.median(first_lengths) if first_lengths else 0.0,
        "latency_ms_p50": percentile(latencies, 0.5),
        "latency_ms_p95": percentile(latencies, 0.95),
    }


def scoped(queries: Sequence[Query], scope: ScopeSet) -> list[Query]:
    """The queries as the scope's audience meets them: a gold document it may not see means
    the right behaviour is to refuse, exactly like a question the corpus cannot answer."""
    return [
        query
        if query.gold_doc_id is None or scope.allows(query.gold_doc_id)
        else replace(query, gold_doc_id=None, answers=())
        for query in queries
    ]


def evaluate(
    index: Index, queries: Sequence[Query], min_score: float, scope: ScopeSet = EVERYTHING
) -> list[Outcome]:
    rows = ScopedRows().rows(index.version, index.chunks, scope)
    outcomes = []
    for query in scoped(queries, scope):
        started = time.perf_counter()
        hits = index.search(query.question, HITS_PER_QUERY, rows=rows)
        latency = (time.perf_counter() - started) * 1000
        refused = not hits or hits[0].score < min_score
        outcomes.append(Outcome(query, hits, refused, latency))
    return outcomes


def report(values: dict[str, float]) -> str:
    lines = []
    for name, value in values.items():
        if name in {"queries", "answerable", "first_source_chars_median"}:
            lines.append(f"{name:<28} {value:g}")
        elif name.startswith("latency"):
            lines.append(f"{name:<28} {value:.1f}")
        else:
            lines.append(f"{name:<28} {value:.3f}")
    return "\n".join(lines)


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.embeddings:
        settings = settings.model_copy(update={"embeddings": args.embeddings})
    try:
        _, scope = chosen_scope(settings, args.scope)
        docs = load_corpus(args.corpus)
        queries = load_queries(args.queries)
    except (OSError, EvalInputError, SettingsError, UnknownScope) as error:
        print(f"citebot: {error}", file=sys.stderr)
        return 2
    inner = embeddings_from_settings(settings)
    cached = None
    if inner is not None:
        cached = CachedEmbeddings(inner, args.cache_dir or settings.index_dir / "eval")
    started = time.perf_counter()
    store = vector_store_from_settings(settings)
    index = index_documents(docs, embeddings=cached, progress=sys.stderr.isatty(), store=store)
    if cached is not None:
        cached.save()
    built = time.perf_counter() - started
    min_score = args.min_score if args.min_score is not None else settings.min_score
    threshold = index.min_score if min_score is None else min_score
    outcomes = evaluate(index, queries, threshold, scope)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as out:
        for outcome in outcomes:
            out.write(json.dumps(outcome.as_json(), ensure_ascii=False) + "\n")
    origin = "default of gate " + index.gate.name if min_score is None else "override"
    print(f"index {index.version}: {len(docs)} documents, {len(index)} chunks in {built:.1f} s")
    print(f"threshold {threshold:g} ({origin}); results in {args.out}")
    if not scope.unrestricted:
        visible = sum(1 for doc in docs if scope.allows(doc.source))
        print(f"scope {scope}: {visible} of {len(docs)} documents searched")
    print(report(metrics(outcomes)))
    return 0
