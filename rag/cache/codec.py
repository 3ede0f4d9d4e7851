"""Results as versioned JSON, so a stored value outlives the code that wrote it.

The answer cache and the reviewed-answer store keep results outside the process (Redis).
A later release may read a value an older one wrote, or a value may be damaged; reading must
then fail with one clear error (:class:`CodecError`) that callers treat as "not stored",
never crash the question that found it. Layout (``"v": 1``)::

    {"v": 1, "verdict": "answer" | "refusal" | "unverified", "question", "text",
     "hits": [{"source", "heading": [...], "n", "start", "section", "title", "link",
               "doc_id", "text", "score", "lexical", "dense", "rank"}],
     "reason" (refusal), "problems" (unverified), "timings_ms",
     "created_at" (ISO 8601, UTC), "reviewed_by", "reviewed_at"}

``text`` of an ``unverified`` value is its draft. A new layout gets a new ``v``; values of an
unknown ``v`` are unreadable, not guessed at.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from rag.chunks import Chunk
from rag.results import Answer, Hit, Provenance, Refusal, Result, Unverified

VERSION = 1

T = TypeVar("T")


class CodecError(ValueError):
    """A stored value cannot be read as a result; the message says what is wrong."""


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def _hit_to_json(hit: Hit) -> dict[str, Any]:
    chunk = hit.chunk
    return {
        "source": chunk.source,
        "heading": list(chunk.heading),
        "n": chunk.n,
        "start": chunk.start,
        "section": chunk.section,
        "title": chunk.title,
        "link": chunk.link,
        "doc_id": chunk.doc_id,
        "text": chunk.text,
        "score": hit.score,
        "lexical": hit.lexical,
        "dense": hit.dense,
        "rank": hit.rank,
    }


def result_to_json(result: Result, *, created_at: datetime | None = None) -> dict[str, Any]:
    """The result as plain JSON data; ``created_at`` defaults to now (UTC)."""
    data: dict[str, Any] = {
        "v": VERSION,
        "verdict": result.verdict,
        "question": result.question,
        "text": result.text,
        "hits": [_hit_to_json(hit) for hit in result.hits],
        "timings_ms": dict(result.timings_ms),
        "created_at": _iso(created_at or datetime.now(UTC)),
        "reviewed_by": result.provenance.reviewed_by,
        "reviewed_at": _iso(result.provenance.reviewed_at),
    }
    if isinstance(result, Refusal):
        data["reason"] = result.reason
    if isinstance(result, Unverified):
        data["problems"] = list(result.problems)
    return data


# --- reading: every field checked, every failure one CodecError naming the field ------------


def _field(data: Mapping[str, Any], name: str, where: str) -> Any:
    if name not in data:
        msg = f"{where}: missing {name!r}"
        raise CodecError(msg)
    return data[name]


def _typed(value: Any, kinds: type | tuple[type, ...], name: str, where: str) -> Any:
    # bool is an int in Python, but never a valid number, position or text here
    if isinstance(value, bool) or not isinstance(value, kinds):
        msg = f"{where}: {name!r} has type {type(value).__name__}, got {value!r:.60}"
        raise CodecError(msg)
    return value


def _str(data: Mapping[str, Any], name: str, where: str) -> str:
    value: str = _typed(_field(data, name, where), str, name, where)
    return value


def _opt_str(data: Mapping[str, Any], name: str, where: str) -> str | None:
    value = data.get(name)
    return None if value is None else _str(data, name, where)


def _int(data: Mapping[str, Any], name: str, where: str) -> int:
    value: int = _typed(_field(data, name, where), int, name, where)
    return value


def _float(data: Mapping[str, Any], name: str, where: str) -> float:
    value = _typed(_field(data, name, where), (int, float), name, where)
    if not math.isfinite(value):
        msg = f"{where}: {name!r} must be a finite number, got {value!r}"
        raise CodecError(msg)
    return float(value)


def _opt_float(data: Mapping[str, Any], name: str, where: str) -> float | None:
    return None if data.get(name) is None else _float(data, name, where)


def _list(data: Mapping[str, Any], name: str, where: str, item: Callable[[Any, str], T]) -> list[T]:
    values = _typed(_field(data, name, where), list, name, where)
    return [item(value, f"{where}.{name}[{i}]") for i, value in enumerate(values)]


def _moment(data: Mapping[str, Any], name: str, where: str) -> datetime | None:
    raw = _opt_str(data, name, where)
    if raw is None:
        return None
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        msg = f"{where}: {name!r} is not an ISO 8601 time: {raw!r:.40}"
        raise CodecError(msg) from None
    if moment.tzinfo is None:
        msg = f"{where}: {name!r} has no time zone: {raw!r}"
        raise CodecError(msg)
    return moment.astimezone(UTC)


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        msg = f"{where}: expected an object, got {type(value).__name__}"
        raise CodecError(msg)
    return value


def _text_item(value: Any, where: str) -> str:
    if not isinstance(value, str):
        msg = f"{where}: expected a string, got {type(value).__name__}"
        raise CodecError(msg)
    return value


def _hit_from_json(value: Any, where: str) -> Hit:
    data = _mapping(value, where)
    chunk = Chunk(
        source=_str(data, "source", where),
        text=_str(data, "text", where),
        n=_int(data, "n", where),
        heading=tuple(_list(data, "heading", where, _text_item)),
        start=_int(data, "start", where),
        section=_int(data, "section", where),
        title=_str(data, "title", where),
        link=_opt_str(data, "link", where),
        doc_id=_str(data, "doc_id", where),
    )
    return Hit(
        chunk,
        score=_float(data, "score", where),
        lexical=_opt_float(data, "lexical", where),
        dense=_opt_float(data, "dense", where),
        rank=_int(data, "rank", where),
    )


def _timings(data: Mapping[str, Any], where: str) -> dict[str, float]:
    raw = _mapping(data.get("timings_ms", {}), f"{where}.timings_ms")
    return {str(name): _float(raw, name, f"{where}.timings_ms") for name in raw}


def created_at(data: Mapping[str, Any]) -> datetime:
    """When the stored result was first given; raises :class:`CodecError` when unreadable."""
    moment = _moment(_mapping(data, "value"), "created_at", "value")
    if moment is None:
        msg = "value: missing 'created_at'"
        raise CodecError(msg)
    return moment


def result_from_json(data: Mapping[str, Any]) -> Result:
    """The result ``data`` describes; raises :class:`CodecError` on anything unreadable."""
    where = "value"
    data = _mapping(data, where)
    version = data.get("v")
    if version != VERSION or isinstance(version, bool):
        msg = f"{where}: layout version {version!r} is not readable (this code reads {VERSION})"
        raise CodecError(msg)
    verdict = _str(data, "verdict", where)
    question = _str(data, "question", where)
    text = _str(data, "text", where)
    hits = tuple(_list(data, "hits", where, _hit_from_json))
    timings = _timings(data, where)
    created_at(data)  # every value says when it was first given
    provenance = Provenance(
        reviewed_by=_opt_str(data, "reviewed_by", where),
        reviewed_at=_moment(data, "reviewed_at", where),
    )
    result: Result
    if verdict == "answer":
        result = Answer(question, text, hits, timings_ms=timings)
    elif verdict == "refusal":
        reason = _str(data, "reason", where)
        result = Refusal(question, text, hits, reason=reason, timings_ms=timings)
    elif verdict == "unverified":
        problems = tuple(_list(data, "problems", where, _text_item))
        result = Unverified(question, text, problems, hits, timings_ms=timings)
    else:
        msg = f"{where}: verdict {verdict!r} is not one of answer, refusal, unverified"
        raise CodecError(msg)
    return replace(result, provenance=provenance)
