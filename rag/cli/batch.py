"""``python -m rag ask --questions IN.jsonl --out OUT.jsonl``: many questions, one process.

IN: one JSON object a line with ``id`` and ``question``; with ``first_question`` the question is
the second turn of a thread and is made standalone exactly as the bot makes a thread follow-up
standalone (:class:`rag.followup.rewrite.Rewriter`: the chat model when one is configured, else
the rules). Other fields are ignored: nothing but the question reaches the answer core.

OUT: one line per input line, in order::

    {"id", "verdict": "answer" | "refusal" | "unverified", "text", "sources": [{"n", "source",
     "heading", "updated"?, "status"?}]}

``text`` is what the asker would see (for ``unverified``, the draft that went to review),
``source`` the path relative to DOCS_DIR and ``n`` the ``[n]`` of the source in ``text``;
``updated`` its document's last-updated date and ``status`` its status when it is not current
(:func:`rag.lifecycle.source_dates`).
When the chat model gives no usable reply for a question (after its retries), that line says
what the asker would have read (the model-failure sentence, verdict ``refusal``: nothing was
answered) with ``"failure": reason``, and the run goes on: one timeout must not cost the
answers to the rest of a long run.
A line that is not a question object is reported with its line number and nothing is answered,
so a typo never costs a long run half-way through.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from rag.cli.jsonl import json_objects
from rag.errors import CitebotError
from rag.followup.rewrite import Rewriter
from rag.generate.llm import GenerationError
from rag.language import detect_language
from rag.lifecycle import source_dates
from rag.messages import model_failure_text
from rag.pipeline import Pipeline
from rag.results import Result


@dataclass(frozen=True, slots=True)
class Asked:
    id: str
    question: str
    first_question: str | None = None


class BadQuestions(CitebotError, ValueError):
    """The questions file cannot be read; the message names the file and line."""


def _text(row: dict[str, Any], name: str, where: str) -> str:
    value = row.get(name)
    if name == "id" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        msg = f"{where}: {name!r} must be a non-empty string"
        raise BadQuestions(msg)
    return value


def read_questions(path: Path) -> list[Asked]:
    """Every question of ``path``, validated before any is answered."""
    asked: list[Asked] = []
    seen: set[str] = set()
    try:
        rows = list(json_objects(path, BadQuestions))
    except (OSError, UnicodeDecodeError) as error:
        msg = f"cannot read the questions file {path}: {error}"
        raise BadQuestions(msg) from error
    for number, row in rows:
        where = f"{path}:{number}"
        ident, question = _text(row, "id", where), _text(row, "question", where)
        first = None if row.get("first_question") is None else _text(row, "first_question", where)
        if ident in seen:
            msg = f"{where}: id {ident!r} appears twice"
            raise BadQuestions(msg)
        seen.add(ident)
        asked.append(Asked(ident, question.strip(), None if first is None else first.strip()))
    return asked


def out_line(asked: Asked, result: Result) -> dict[str, Any]:
    today = date.today()
    return {
        "id": asked.id,
        "verdict": result.verdict,
        "text": result.text,
        "sources": [
            {
                "n": n,
                "source": hit.chunk.source,
                "heading": hit.chunk.heading_path,
                **source_dates(hit.chunk.lifecycle, today),
            }
            for n, hit in enumerate(result.hits, start=1)
        ],
    }


def failed_line(asked: Asked, error: GenerationError) -> dict[str, Any]:
    """What the bot shows when the model fails: its one sentence, no sources."""
    text = model_failure_text(detect_language(asked.question))
    return {
        "id": asked.id,
        "verdict": "refusal",
        "text": text,
        "sources": [],
        "failure": error.reason,
    }


async def answer_all(
    questions: Iterable[Asked], pipeline: Pipeline, rewriter: Rewriter, out: Path, *, scope: str
) -> Counter[str]:
    """Answers every question in order, writing each line as soon as it is answered.

    The counter has one entry per verdict and ``failed`` for the model failures among the
    refusals.
    """
    verdicts: Counter[str] = Counter()
    with out.open("w", encoding="utf-8") as sink:
        for asked in questions:
            question = asked.question
            if asked.first_question is not None:
                question = await rewriter.standalone(question, (asked.first_question,))
            try:
                result = await pipeline.answer(question, scope=scope)
            except GenerationError as error:
                line = failed_line(asked, error)
                verdicts["failed"] += 1
            else:
                line = out_line(asked, result)
            verdicts[str(line["verdict"])] += 1
            sink.write(json.dumps(line, ensure_ascii=False) + "\n")
            sink.flush()
    return verdicts


def summary(verdicts: Counter[str]) -> str:
    """One line per verdict, in a fixed order (``answer: 41``), then how many of the refusals
    were the chat model failing, if any."""
    lines = [f"{v}: {verdicts.get(v, 0)}" for v in ("answer", "refusal", "unverified")]
    if verdicts.get("failed"):
        lines.append(f'model failed: {verdicts["failed"]} (counted as refusals; see "failure")')
    return "\n".join(lines)
