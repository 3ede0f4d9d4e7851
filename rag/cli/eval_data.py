"""The labelled set of ``python -m rag eval``: corpus and query files, read line by line.

Formats are the contract in DESIGN.md ("Eval file formats"); a line that breaks it raises
:class:`EvalInputError` naming the file and line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.cli.jsonl import json_objects
from rag.errors import CitebotError
from rag.ingest.documents import SourceDocument


class EvalInputError(CitebotError, ValueError):
    """A corpus or query file that does not follow the format; the message names the line."""


def _field(path: Path, number: int, record: dict[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value:
        msg = f"{path}:{number}: {name!r} must be a non-empty string"
        raise EvalInputError(msg)
    return value


def load_corpus(path: Path) -> list[SourceDocument]:
    docs = []
    for number, record in json_objects(path, EvalInputError):
        doc_id = _field(path, number, record, "id")
        title = record.get("title") or ""
        text = record.get("text")
        if not isinstance(text, str) or not isinstance(title, str):
            msg = f"{path}:{number}: 'text' and 'title' must be strings"
            raise EvalInputError(msg)
        docs.append(SourceDocument(source=doc_id, text=text, title=title, doc_id=doc_id))
    return docs


@dataclass(frozen=True, slots=True)
class Query:
    id: str
    question: str
    gold_doc_id: str | None
    answers: tuple[str, ...]


def _question(path: Path, number: int, record: dict[str, Any]) -> str:
    # Empty questions occur in real sets (cmrc2018-trial has two); they are kept and counted.
    value = record.get("question")
    if not isinstance(value, str):
        msg = f"{path}:{number}: 'question' must be a string"
        raise EvalInputError(msg)
    return value


def load_queries(path: Path) -> list[Query]:
    queries = []
    for number, record in json_objects(path, EvalInputError):
        gold = record.get("gold_doc_id")
        answers = record.get("answers") or []
        if gold is not None and not isinstance(gold, str):
            msg = f"{path}:{number}: 'gold_doc_id' must be a string or null"
            raise EvalInputError(msg)
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            msg = f"{path}:{number}: 'answers' must be a list of strings"
            raise EvalInputError(msg)
        queries.append(
            Query(
                id=_field(path, number, record, "id"),
                question=_question(path, number, record),
                gold_doc_id=gold,
                answers=tuple(answers),
            )
        )
    return queries
