"""``python -m rag report [--since 7d] [--json|--csv|--html FILE]``: what people asked.

Reads the question and review records the bot keeps (Redis when REDIS_URL is set, else under
INDEX_DIR), groups the unanswered questions by meaning with the configured embedder (the
bundled e5 by default; EMBEDDINGS=none groups identical questions only) and prints the report:
text by default, one JSON object, long-form CSV, or one self-contained HTML page. The text and
JSON forms also show each synced wiki's last sync (SOURCES_FILE) and its errors.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from rag.assemble import embeddings_from_settings
from rag.errors import CitebotError
from rag.feedback.stores import vote_store
from rag.feedback.votes import VoteRecord
from rag.lifecycle import Lifecycle
from rag.report.page import render_page
from rag.report.records import QuestionRecord, ReviewRecord
from rag.report.render import as_csv, as_text
from rag.report.store import record_store
from rag.report.summary import build_report
from rag.search.manifest import MANIFEST_FILE
from rag.settings import Settings, secret
from rag.storage import redis_guard
from rag.storage.redis_guard import GuardedRedis, RedisUnavailable, describe
from rag.sync.state import describe as sync_states

REDIS_TIMEOUT_SECONDS = 5.0
_PERIOD = re.compile(r"^(\d+)([mhdw])$")
_UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class ReportError(CitebotError):
    """A one-line reason the report cannot be made."""


def period_seconds(text: str) -> int:
    match = _PERIOD.match(text.strip().lower())
    if match is None or int(match.group(1)) == 0:
        msg = f"--since {text!r} is not a period; use a number and a unit: 30m, 24h, 7d or 2w"
        raise ReportError(msg)
    return int(match.group(1)) * _UNIT_SECONDS[match.group(2)]


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "report", help="what was asked, refused and sent to review; the unanswered by meaning"
    )
    parser.add_argument(
        "--since", default="7d", help="period to report: 30m, 24h, 7d (default), 2w"
    )
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print one JSON object")
    form.add_argument("--csv", action="store_true", help="print long-form CSV")
    form.add_argument("--html", type=Path, metavar="FILE", help="write a self-contained page")
    parser.set_defaults(func=run)


def indexed_documents(index_dir: Path) -> list[str] | None:
    """The documents in the index (for "never cited"); ``None`` when there is no index."""
    try:
        manifest = json.loads((index_dir / MANIFEST_FILE).read_text(encoding="utf-8"))
        return sorted(manifest["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def indexed_lifecycles(index_dir: Path) -> dict[str, Lifecycle] | None:
    """Each indexed document's lifecycle (its first passage's), read from the manifest;
    ``None`` when there is no index."""
    try:
        files = json.loads((index_dir / MANIFEST_FILE).read_text(encoding="utf-8"))["files"]
        return {
            source: Lifecycle.from_row((entry["chunks"] or [{}])[0].get("lifecycle"))
            for source, entry in files.items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


@dataclass(frozen=True, slots=True)
class Records:
    questions: list[QuestionRecord]
    reviews: list[ReviewRecord]
    where: str
    votes: list[VoteRecord]


async def _records(settings: Settings, since: float) -> Records:
    redis = None
    url = secret(settings.redis_url)
    if url is not None:
        client = Redis.from_url(
            url,
            socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
            socket_timeout=REDIS_TIMEOUT_SECONDS,
        )
        redis = GuardedRedis(client, key_prefix=settings.redis_key_prefix)
    store = record_store(settings.index_dir, redis, retention_days=settings.retention_days)
    # The report says what failed in its own one line; the guarded client's "continuing
    # without it" would be a second line, and wrong here: a report does not go on without it.
    guard_log = logging.getLogger(redis_guard.__name__)
    level = guard_log.level
    guard_log.setLevel(logging.ERROR)
    try:
        questions, reviews = await store.questions(since), await store.reviews(since)
        votes = vote_store(
            redis, retention_days=settings.retention_days, index_dir=settings.index_dir
        )
        return Records(questions, reviews, store.where, await votes.since(since))
    except (RedisError, RedisUnavailable, OSError) as error:
        reason = describe(error.__cause__ or error)
        msg = f"cannot read the question records from {store.where}: {reason}"
        raise ReportError(msg) from error
    finally:
        guard_log.setLevel(level)
        if redis is not None:
            await redis.aclose()


def make_report(settings: Settings, since_text: str, *, now: float | None = None) -> dict[str, Any]:
    until = time.time() if now is None else now
    since = until - period_seconds(since_text)
    records = asyncio.run(_records(settings, since))
    report = build_report(
        records.questions,
        records.reviews,
        since=since,
        until=until,
        where=records.where,
        documents=indexed_documents(settings.index_dir),
        embeddings=embeddings_from_settings(settings),
        votes=records.votes,
        lifecycles=indexed_lifecycles(settings.index_dir),
        stale_after_days=settings.stale_after_days,
    )
    report["sources"] = sync_states(settings.index_dir)
    return report


def sources_text(sources: list[dict[str, Any]]) -> str:
    """The synced wikis' last syncs, for the text report (nothing when none is synced)."""
    lines = ["", "Synced sources (SOURCES_FILE):"] if sources else []
    for source in sources:
        last = source["last_sync"]
        if last is None:
            lines.append(f"  {source['source']}: never synced")
            continue
        lines.append(
            f"  {source['source']}: {last['outcome']} at {last['at']}, "
            f"{source['documents']} documents; {last['added']} added, {last['changed']} "
            f"changed, {last['removed']} removed, {len(last['failed'])} failed"
        )
        if last["error"]:
            lines.append(f"    error: {last['error']}")
        lines.extend(f"    {f['document']}: {f['reason']}" for f in last["failed"])
    return "\n".join(lines)


def run(args: argparse.Namespace, settings: Settings) -> int:
    try:
        report = make_report(settings, args.since)
        if args.html is not None:
            args.html.write_text(render_page(report), encoding="utf-8")
            print(f"wrote {args.html}")
        elif args.json:
            print(json.dumps(report, ensure_ascii=False, indent=2))
        elif args.csv:
            sys.stdout.write(as_csv(report))
        else:
            print(as_text(report) + sources_text(report["sources"]))
    except ReportError as error:
        print(f"citebot: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"citebot: cannot write {args.html}: {error.strerror}", file=sys.stderr)
        return 2
    return 0
