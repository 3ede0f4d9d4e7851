"""``python -m rag calibrate --questions Q.jsonl``: fit the refusal threshold to your documents.

Questions are JSON lines ``{"question": "...", "source": "hr/leave.md" | null}`` (``gold_doc_id``
is accepted instead of ``source``, so eval query files work too): the document under DOCS_DIR
that answers the question, or ``null`` when the documents don't hold the answer and the bot
should refuse. The command searches every question over the current index, prints both groups'
gate scores as a histogram, the threshold that maximises the F1 of refusing and what it means
(questions wrongly refused, unanswerable questions answered anyway), and writes
``INDEX_DIR/calibration.json``, which the bot uses from its next start unless MIN_SCORE is set.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from rag.assemble import open_index
from rag.cli.eval_data import EvalInputError
from rag.cli.jsonl import json_objects
from rag.search.calibration import (
    Calibration,
    ThresholdChoice,
    best_threshold,
    refusal_metrics,
    save_calibration,
    text_histogram,
)
from rag.search.index import Index
from rag.settings import Settings


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "calibrate", help="choose the refusal threshold from labelled questions"
    )
    parser.add_argument(
        "--questions", type=Path, required=True, help='JSONL {"question", "source": path|null}'
    )
    parser.add_argument("--docs", type=Path, help="folder of documents (default: DOCS_DIR)")
    parser.add_argument("--plot", type=Path, help="also draw the histograms to this PNG")
    parser.add_argument("--dry-run", action="store_true", help="print, don't write calibration")
    parser.set_defaults(func=run)


def load_questions(path: Path) -> list[tuple[str, str | None]]:
    questions = []
    for number, record in json_objects(path, EvalInputError):
        question = record.get("question")
        source = record.get("source", record.get("gold_doc_id"))
        if not isinstance(question, str) or not question.strip():
            msg = f"{path}:{number}: 'question' must be a non-empty string"
            raise EvalInputError(msg)
        if source is not None and not isinstance(source, str):
            msg = f"{path}:{number}: 'source' must be a document path or null"
            raise EvalInputError(msg)
        questions.append((question, source))
    return questions


def _share(count: int, total: int) -> str:
    return f"{count} of {total} ({count / total:.0%})" if total else "0 of 0"


def plot(path: Path, answerable: list[float], unanswerable: list[float], threshold: float) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "--plot needs matplotlib (pip install matplotlib); the text histogram is above"
    figure, axes = plt.subplots(figsize=(8, 4))
    axes.hist([answerable, unanswerable], bins=24, label=["answerable", "unanswerable"])
    axes.axvline(threshold, color="black", linestyle="--", label=f"threshold {threshold:g}")
    axes.set_xlabel("gate score of the first source")
    axes.set_ylabel("questions")
    axes.legend()
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)
    return f"plot written to {path}"


def calibrate(
    index: Index, questions: list[tuple[str, str | None]], top_k: int
) -> tuple[list[float], list[bool], list[str]]:
    """Each question's gate score, whether it should be refused, and warnings about labels."""
    scores, should_refuse, warnings = [], [], []
    sources = {chunk.document for chunk in index.chunks}
    for question, source in questions:
        hits = index.search(question, max(top_k, 5))
        scores.append(hits[0].score if hits else float("-inf"))
        should_refuse.append(source is None)
        if source is None:
            continue
        if source not in sources:
            warnings.append(f"{source!r} (for {question!r}) is not in the index: check the path")
        elif all(hit.chunk.document != source for hit in hits):
            warnings.append(f"{question!r}: {source} is not among the first {len(hits)} sources")
    return scores, should_refuse, warnings


def print_report(
    index: Index, scores: Sequence[float], should_refuse: Sequence[bool], choice: ThresholdChoice
) -> None:
    """The histogram, the chosen threshold's errors, and how the current threshold does."""
    answerable = [s for s, refuse in zip(scores, should_refuse, strict=True) if not refuse]
    unanswerable = [s for s, refuse in zip(scores, should_refuse, strict=True) if refuse]
    current = refusal_metrics([s < index.min_score for s in scores], should_refuse)
    groups = {"answerable": answerable, "unanswerable (should refuse)": unanswerable}
    print(f"gate scores of the first source, index {index.version} ({index.gate.name} gate)")
    print(text_histogram(groups, threshold=choice.threshold))
    print()
    chosen = choice.metrics
    print(f"threshold maximising the F1 of refusing: {choice.threshold:g}")
    print(
        f"  refusal precision {chosen.precision:.3f}, recall {chosen.recall:.3f}, "
        f"F1 {chosen.f1:.3f}"
    )
    refused = round(chosen.false_refusal_rate * len(answerable))
    answered = round(chosen.answered_unanswerable_rate * len(unanswerable))
    print(f"  false refusals: {_share(refused, len(answerable))} answerable questions refused")
    print(
        f"  answered anyway: {_share(answered, len(unanswerable))} unanswerable questions "
        "reach the model (risk of an invented answer; the citation check still reviews them)"
    )
    print(f"current threshold {index.min_score:g}: refusal F1 {current.f1:.3f}")


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.docs is not None:
        settings = settings.model_copy(update={"docs_dir": args.docs})
    try:
        questions = load_questions(args.questions)
    except (OSError, EvalInputError) as error:
        print(f"citebot: {error}", file=sys.stderr)
        return 2
    index = open_index(settings, progress=sys.stderr.isatty())
    scores, should_refuse, warnings = calibrate(index, questions, settings.top_k)
    answerable = [s for s, refuse in zip(scores, should_refuse, strict=True) if not refuse]
    unanswerable = [s for s, refuse in zip(scores, should_refuse, strict=True) if refuse]
    if not answerable or not unanswerable:
        print(
            "citebot: calibration needs both kinds of questions: ones a document answers "
            f"(got {len(answerable)}) and ones none does, with source null "
            f"(got {len(unanswerable)})",
            file=sys.stderr,
        )
        return 2
    choice = best_threshold(scores, should_refuse)
    print_report(index, scores, should_refuse, choice)
    chosen = choice.metrics
    for warning in warnings:
        print(f"warning: {warning}")
    if args.plot is not None:
        print(plot(args.plot, answerable, unanswerable, choice.threshold))
    if args.dry_run:
        print("dry run: nothing written")
        return 0
    path = save_calibration(
        settings.index_dir,
        Calibration(
            min_score=choice.threshold,
            gate=index.gate.identity,
            questions=len(scores),
            answerable=len(answerable),
            unanswerable=len(unanswerable),
            f1=round(chosen.f1, 4),
            false_refusal_rate=round(chosen.false_refusal_rate, 4),
            answered_unanswerable_rate=round(chosen.answered_unanswerable_rate, 4),
            index_version=index.version,
        ),
    )
    note = " (MIN_SCORE is set and still wins)" if settings.min_score is not None else ""
    print(f"written to {path}; the bot uses it from its next start{note}")
    return 0
