"""``python -m rag index [--docs DIR]``: build or refresh the persisted index, then summarise.

Only new or changed files are split and embedded (see :func:`rag.ingest.build.load_or_build`); the
summary says how many files were read and skipped (with why), how many chunks were embedded
and how many vectors were reused, how long it took and the resulting index version.

With REDIS_URL set the command works as a bot process does: it reads vectors another process
already computed instead of embedding them, shares the ones it computed, then announces the
version, so bots on every machine serve it within seconds and embed nothing it embedded.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from rag.assemble import build_index, embeddings_from_settings
from rag.cache.breaker import GuardedRedis, RedisUnavailable, describe
from rag.ingest.build import BuildReport, load_or_build
from rag.ingest.coordination import RedisAnnouncer
from rag.ingest.sharing import Sharing
from rag.search.index import Index
from rag.settings import Settings, secret

REDIS_SECONDS = 5.0
"""Connect, socket and per-command timeouts: a command line can wait longer than a question."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("index", help="build or refresh the index of DOCS_DIR")
    parser.add_argument("--docs", type=Path, help="folder of documents (default: DOCS_DIR)")
    parser.set_defaults(func=run)


def summary(report: BuildReport, settings: Settings, *, fetched: int = 0) -> str:
    """``fetched``: of the vectors the local cache lacked, how many were read from Redis."""
    lines = [
        f"documents: {settings.docs_dir} -> index: {settings.index_dir}",
        f"files read: {report.files} ({report.chunked_files} split, "
        f"{report.files - report.chunked_files} unchanged), skipped: {len(report.skipped)}",
    ]
    lines.extend(f"  skipped {item.path}: {item.reason}" for item in report.skipped)
    if settings.embeddings == "none":
        vectors = "dense search off (EMBEDDINGS=none)"
    else:
        vectors = f"{report.embedded - fetched} embedded, {report.reused} reused"
        if fetched:
            vectors += f", {fetched} read from Redis"
    lines.append(f"chunks: {report.chunks} ({vectors})")
    if report.previous_version == report.version:
        change = "unchanged"
    elif report.previous_version is None:
        change = "new"
    else:
        change = f"was {report.previous_version}"
    lines.append(f"index version: {report.version} ({change}); took {report.seconds:.1f} s")
    return "\n".join(lines)


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.docs is not None:
        settings = settings.model_copy(update={"docs_dir": args.docs})
    if not settings.docs_dir.is_dir():
        print(
            f"citebot: the documents folder {settings.docs_dir} does not exist; "
            "set DOCS_DIR or pass --docs DIR",
            file=sys.stderr,
        )
        return 2
    url = secret(settings.redis_url)
    if url is None:
        index, report = build_index(settings, progress=True)
        print(summary(report, settings))
    else:
        index = asyncio.run(_build_shared(settings, url))
    if not len(index):
        print("citebot: no document could be read, so every question will be refused")
        return 1
    return 0


async def _build_shared(settings: Settings, url: str) -> Index:
    """The build with the deployment's shared vectors, then the announcement. Bots sharing
    INDEX_DIR see the new manifest anyway; through Redis, bots on other machines hear of it
    too (within the refresher's poll, 2 s). Redis trouble costs only the sharing."""
    redis = GuardedRedis.from_url(
        url,
        connect_timeout_seconds=REDIS_SECONDS,
        socket_timeout_seconds=REDIS_SECONDS,
        timeout_seconds=REDIS_SECONDS,
    )
    try:
        embeddings = embeddings_from_settings(settings)
        sharing = None if embeddings is None else Sharing.over(redis, embeddings)
        shared = None if sharing is None or embeddings is None else sharing.around(embeddings)
        if sharing is not None:
            sharing.bridge.attach()
        index, report = await asyncio.to_thread(
            load_or_build,
            settings.docs_dir,
            settings.index_dir,
            embeddings=shared or embeddings,
            min_score=settings.min_score,
            progress=True,
        )
        print(summary(report, settings, fetched=0 if shared is None else shared.fetched))
        if sharing is not None and await sharing.share(index) is None:
            print("citebot: vectors not shared through Redis; others embed them", file=sys.stderr)
        try:
            await RedisAnnouncer(redis).announce(index.version)
        except RedisUnavailable as error:
            reason = describe(error.__cause__) if error.__cause__ else "Redis was skipped"
            print(f"citebot: running bots were not told through Redis: {reason}", file=sys.stderr)
    finally:
        await redis.aclose()
    return index
