"""``python -m rag check-eval``: the citation checker judged on recorded answers.

Each input line is one answer as a model wrote it, with the passages its ``[n]`` markers cite
(``sources[n - 1]``) and the question (``meta.question``)::

    {"id", "answer", "sources": [text, ...], "meta": {"question"}, "label"?, "origin"?}

Each output line says what the pipeline would do with that answer, with the settings in
effect: ``{"id", "flagged", "problems": [{"kind", "sentence", "message"}]}`` — ``flagged``
means sent to the review channel instead of the asker. The decision reads only the answer,
the sources and ``meta.question``; ``label``, ``origin`` and the rest of ``meta`` are used
only for the figures printed when labels are present (see :mod:`rag.cli.check_figures`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rag.check.screen import Screening, screen
from rag.chunks import Chunk
from rag.cli.check_figures import Judged, summary
from rag.cli.jsonl import json_objects
from rag.errors import CitebotError
from rag.results import Hit
from rag.settings import Settings

if TYPE_CHECKING:
    from rag.check.judge import ModelJudge


JUDGE_CALLS = 4
"""Model judge requests in flight at once by default: a hosted endpoint serves a few in parallel
well, and its 429s are retried like any other."""


class CheckEvalInputError(CitebotError, ValueError):
    """A line that does not follow the record format; the message names the line."""


@dataclass(frozen=True, slots=True)
class Record:
    id: str
    answer: str
    sources: tuple[str, ...]
    question: str
    label: str | None
    origin: str
    has_number: bool | None

    @property
    def hits(self) -> tuple[Hit, ...]:
        return tuple(
            Hit(Chunk(source=f"source-{n}", text=text, n=n - 1), score=1.0)
            for n, text in enumerate(self.sources, start=1)
        )


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "check-eval", help="run the citation checker on recorded answers and measure it"
    )
    parser.add_argument(
        "--answers", type=Path, required=True, help="JSONL {id, answer, sources, meta.question}"
    )
    parser.add_argument("--out", type=Path, required=True, help="JSONL written, one per answer")
    parser.add_argument(
        "--judge-calls",
        type=_positive,
        default=JUDGE_CALLS,
        metavar="N",
        help=f"model judge calls in flight at once, when it is on (default {JUDGE_CALLS})",
    )
    parser.set_defaults(func=run)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        msg = f"must be a whole number of at least 1, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def _record(path: Path, number: int, data: dict[str, Any]) -> Record:
    answer, sources = data.get("answer"), data.get("sources")
    if not isinstance(answer, str) or not isinstance(sources, list):
        msg = f"{path}, line {number}: 'answer' (text) and 'sources' (list of texts) are required"
        raise CheckEvalInputError(msg)
    if not all(isinstance(source, str) for source in sources):
        msg = f"{path}, line {number}: every entry of 'sources' must be a text"
        raise CheckEvalInputError(msg)
    meta = data["meta"] if isinstance(data.get("meta"), dict) else {}
    question = meta.get("question")
    label = data.get("label")
    has_number = meta.get("has_number")
    return Record(
        id=str(data.get("id", f"line-{number}")),
        answer=answer,
        sources=tuple(sources),
        question=question if isinstance(question, str) else "",
        label=label if label in {"supported", "unsupported"} else None,
        origin=str(data.get("origin", "")),
        has_number=has_number if isinstance(has_number, bool) else None,
    )


def read_records(path: Path) -> Iterator[Record]:
    for number, data in json_objects(path, CheckEvalInputError):
        yield _record(path, number, data)


def as_output(record: Record, screening: Screening) -> dict[str, object]:
    problems = [
        {"kind": problem.kind, "sentence": problem.sentence, "message": problem.message}
        for problem in screening.report.problems
    ]
    return {"id": record.id, "flagged": screening.flagged, "problems": problems}


def run(args: argparse.Namespace, settings: Settings) -> int:
    try:
        records = list(read_records(args.answers))
    except (OSError, CheckEvalInputError) as error:
        print(f"citebot: {error}", file=sys.stderr)  # names the file (and the line)
        return 2
    from rag.assemble import judge_from_settings  # the chat client only when it is needed

    judged = asyncio.run(_judge_all(records, judge_from_settings(settings), args.judge_calls))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as out:
        for record, item in zip(records, judged, strict=True):
            out.write(json.dumps(as_output(record, item.screening), ensure_ascii=False) + "\n")
    print(summary(judged))
    return 0


async def _judge_all(
    records: Sequence[Record], judge: ModelJudge | None, calls: int = JUDGE_CALLS
) -> list[Judged]:
    """Each record screened as the pipeline screens a draft, the model judge included when on
    (``calls`` of its requests in flight at once: a thousand answers one by one take an hour)."""
    screened = [_screened(record) for record in records]
    if judge is None:
        return screened
    slots = asyncio.Semaphore(calls)

    async def judged(item: Judged, record: Record) -> Judged:
        if item.screening.refused is not None:
            return item
        async with slots:
            outcome = await judge.review(record.answer, record.hits)
        report = item.screening.report
        report = replace(report, problems=report.problems + outcome.problems)
        return replace(item, screening=replace(item.screening, report=report), judge=outcome)

    try:
        return list(await asyncio.gather(*map(judged, screened, records)))
    finally:
        await judge.generator.aclose()  # the chat model's HTTP client, with its sockets


def _screened(record: Record) -> Judged:
    started = time.perf_counter()
    screening = screen(record.answer, record.hits, question=record.question)
    elapsed = (time.perf_counter() - started) * 1000
    return Judged(record.label, record.origin, record.has_number, screening, elapsed)
