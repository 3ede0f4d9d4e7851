"""``python -m rag ask "问题"``: one answer in the terminal, or one JSON object with ``--json``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import textwrap
import unicodedata
from collections import Counter
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from rag.assemble import redis_from_settings
from rag.cli import batch
from rag.cli.scoping import add_scope_argument, chosen_scope
from rag.followup.rewrite import Rewriter
from rag.generate.llm import GenerationError
from rag.language import detect_language
from rag.lifecycle import source_dates
from rag.messages import model_failure_text
from rag.problems import Problem
from rag.results import Hit, Result, Unverified
from rag.scopes.file import ScopesFile
from rag.scopes.sets import ScopeSet, UnknownScope
from rag.search.embedding_run import BuildStopped
from rag.serving.opening import lexical_note, open_pipeline
from rag.serving.stopping import kept_text
from rag.settings import Settings, SettingsError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("ask", help="answer one question (or a file of them)")
    parser.add_argument("question", nargs="?", help="the question, in Chinese or English")
    parser.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    parser.add_argument(
        "--questions",
        type=Path,
        metavar="IN.jsonl",
        help='answer every {"id", "question", "first_question"?} line of this file',
    )
    parser.add_argument(
        "--out", type=Path, metavar="OUT.jsonl", help="where --questions writes its answers"
    )
    parser.add_argument(
        "--first-minutes",
        action="store_true",
        help="with --questions: answer before the folder is embedded, as a bot on a new folder "
        "does (each question's best lexical passages embedded for it), not after",
    )
    add_scope_argument(parser, "answer as an audience with this scope of SCOPES_FILE")
    parser.set_defaults(func=run)


def as_json(result: Result) -> dict[str, Any]:
    return {
        "verdict": result.verdict,
        "text": result.text,
        "sources": numbered_sources(result.hits),
        "problems": [problem.message for problem in _problems(result)],
        "cached": result.provenance.cached_at is not None,
        "timings_ms": result.timings_ms,
    }


def _problems(result: Result) -> tuple[Problem, ...]:
    return result.problems if isinstance(result, Unverified) else ()


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _cell(text: str, width: int) -> str:
    out = ""
    for ch in text.replace("\n", " "):
        if _width(out + ch) > width - 1:
            return out + "…" + " " * (width - _width(out) - 1)
        out += ch
    return out + " " * (width - _width(out))


def as_text(result: Result) -> str:
    lines = [result.text, ""]
    if result.hits:
        header = f"{'#':>2}  {_cell('source', 28)} {_cell('heading', 30)} {_cell('updated', 11)}"
        header += f"{'score':>6} {'lex':>6} {'dense':>6} {'rank':>4}  excerpt"
        lines.append(header)
        for source in numbered_sources(result.hits):
            lexical = "-" if source["lexical"] is None else f"{source['lexical']:.3f}"
            dense = "-" if source["dense"] is None else f"{source['dense']:.3f}"
            lines.append(
                f"{source['n']:>2}  {_cell(str(source['source']), 28)} "
                f"{_cell(str(source['heading']), 30)} {_cell(_dated(source), 11)}"
                f"{source['score']:>6.3f} {lexical:>6} "
                f"{dense:>6} {source['rank']:>4}  {_cell(str(source['excerpt']), 40)}"
            )
        lines.append("")
    lines.append(
        f"verdict: {result.verdict}" + (" (cached)" if result.provenance.cached_at else "")
    )
    for problem in _problems(result):
        lines.append(textwrap.indent(f"- {problem.message}", "  "))
    timings = ", ".join(f"{name} {value:.1f} ms" for name, value in result.timings_ms.items())
    if timings:
        lines.append(f"timings: {timings}")
    return "\n".join(lines)


def _dated(source: dict[str, object]) -> str:
    """``2025-03-01``, or the status of a source that is not current (``superseded``)."""
    return str(source.get("status") or source.get("updated") or "-")


async def _ask(
    question: str, settings: Settings, scope: ScopeSet, scopes: ScopesFile | None
) -> Result:
    """Answered at once, from the lexical index while the vectors are missing (then saying
    so on stderr): :func:`rag.serving.opening.open_pipeline`."""
    catalog = None if scopes is None else scopes.catalog
    redis = redis_from_settings(settings)
    try:
        opened = await open_pipeline(settings, redis=redis, scopes=catalog)
        try:
            result = await opened.pipeline.answer(question, scope=scope.key)
        finally:
            await opened.pipeline.aclose()
    finally:
        if redis is not None:
            await redis.aclose()
    if opened.lexical:
        print(lexical_note(opened), file=sys.stderr)
    return result


async def _ask_many(
    questions: list[batch.Asked],
    out: Path,
    settings: Settings,
    scope: ScopeSet,
    scopes: ScopesFile | None,
    *,
    first_minutes: bool = False,
) -> Counter[str]:
    catalog = None if scopes is None else scopes.catalog
    redis = redis_from_settings(settings)
    try:
        # Measured for quality: every passage embedded first (with progress); or, to measure a
        # bot's first minutes, none (each question's candidates are embedded on demand).
        opened = await open_pipeline(
            settings, redis=redis, scopes=catalog, lexical_first=first_minutes, embed_first=True
        )
        pipeline = opened.pipeline
        rewriter = Rewriter(pipeline.generator) if settings.llm_configured else Rewriter()
        try:
            return await batch.answer_all(questions, pipeline, rewriter, out, scope=scope.key)
        finally:
            await pipeline.aclose()
    finally:
        if redis is not None:
            await redis.aclose()


def _run_many(args: argparse.Namespace, settings: Settings) -> int:
    if args.question is not None or args.out is None or args.json:
        print(
            "citebot: --questions IN.jsonl needs --out OUT.jsonl, and no question or --json",
            file=sys.stderr,
        )
        return 2
    try:
        questions = batch.read_questions(args.questions)
        scopes, scope = chosen_scope(settings, args.scope)
    except (batch.BadQuestions, SettingsError, UnknownScope) as error:
        print(f"citebot: {error}", file=sys.stderr)
        return 2
    try:
        many = _ask_many(
            questions, args.out, settings, scope, scopes, first_minutes=args.first_minutes
        )
        verdicts = asyncio.run(many)
    except (FileNotFoundError, NotADirectoryError) as error:  # DOCS_DIR: says what to set
        print(f"citebot: {error}", file=sys.stderr)
        return 2
    except BuildStopped as stopped:
        print(
            f"citebot: stopped before answering: {kept_text(stopped, again='run it again')}",
            file=sys.stderr,
        )
        return 130
    print(batch.summary(verdicts))
    return 0


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.questions is not None:
        return _run_many(args, settings)
    question = (args.question or "").strip()
    if not question:
        print(
            "citebot: the question is empty; ask something, e.g. 口语课一共有几级？",
            file=sys.stderr,
        )
        return 2
    try:
        scopes, scope = chosen_scope(settings, args.scope)
    except (SettingsError, UnknownScope) as error:
        print(f"citebot: {error}", file=sys.stderr)
        return 2
    try:
        result = asyncio.run(_ask(question, settings, scope, scopes))
    except (FileNotFoundError, NotADirectoryError) as error:  # DOCS_DIR: says what to set
        print(f"citebot: {error}", file=sys.stderr)
        return 2
    except BuildStopped as stopped:
        print(
            f"citebot: stopped before answering: {kept_text(stopped, again='ask again')}",
            file=sys.stderr,
        )
        return 130
    except GenerationError as error:
        print(model_failure_text(detect_language(question)), file=sys.stderr)
        print(f"citebot: the chat model failed: {error.reason}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(as_json(result), ensure_ascii=False))
    else:
        print(as_text(result))
    return 0


def numbered_sources(hits: Sequence[Hit]) -> list[dict[str, object]]:
    """The numbered sources as plain data (``rag ask --json``, logs): each with its
    document's last-updated date (``updated``) and, when not current, its ``status``."""
    today = date.today()
    return [
        {
            "n": n,
            "source": hit.chunk.source,
            "heading": hit.chunk.heading_path,
            "score": round(hit.score, 4),
            "lexical": None if hit.lexical is None else round(hit.lexical, 4),
            "dense": None if hit.dense is None else round(hit.dense, 4),
            "rank": hit.rank,
            "excerpt": hit.chunk.text,
            "link": hit.chunk.link,
            **source_dates(hit.chunk.lifecycle, today),
        }
        for n, hit in enumerate(hits, start=1)
    ]
