"""``python -m rag index [--docs DIR]``: build or refresh the persisted index, then summarise.

Only new or changed files are split and embedded (see :func:`rag.search.build.load_or_build`); the
summary says how many files were read and skipped (with why), how many chunks were embedded
and how many vectors were reused, how long it took and the resulting index version.

With REDIS_URL set the command works as a bot process does: it reads vectors another process
already computed instead of embedding them, shares the ones it computed, then announces the
version, so bots on every machine serve it within seconds and embed nothing it embedded.

It takes the build lock running bots take (:mod:`rag.serving.coordination`), so it and a bot's
scan never embed one change twice: while a bot builds it waits, then builds incrementally from
the vectors that build cached. Progress is one line (redrawn on a terminal, a line every few
seconds in a log) with a rate smoothed over the last minutes and what is left; Ctrl-C or SIGTERM
stop it at once, free the lock and say how many vectors were kept (a rerun resumes).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

from rag.assemble import embeddings_from_settings, vector_store_from_settings
from rag.cli.skips import skipped_count, skipped_lines
from rag.search.build import BuildReport, load_or_build
from rag.search.embedding_run import BuildStopped
from rag.search.index import Index
from rag.search.progress_line import ProgressLine
from rag.serving.background import BackgroundBuilds, Watched, stoppable
from rag.serving.coordination import BuildLock, RedisAnnouncer, coordination
from rag.serving.sharing import Sharing
from rag.serving.stopping import kept_text, stop_on_signals
from rag.settings import Settings, secret
from rag.storage import redis_guard
from rag.storage.redis_guard import GuardedRedis, RedisUnavailable, describe

REDIS_SECONDS = 5.0
"""Connect, socket and per-command timeouts: a command line can wait longer than a question."""
LOCK_POLL_SECONDS = 0.5
"""How often the build lock is tried while a running bot holds it."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("index", help="build or refresh the index of DOCS_DIR")
    parser.add_argument("--docs", type=Path, help="folder of documents (default: DOCS_DIR)")
    parser.set_defaults(func=run)


def summary(report: BuildReport, settings: Settings, *, fetched: int = 0) -> str:
    """``fetched``: of the vectors the local cache lacked, how many were read from Redis."""
    lines = [
        f"documents: {settings.docs_dir} -> index: {settings.index_dir}",
        f"files read: {report.files} ({report.chunked_files} split, "
        f"{report.files - report.chunked_files} unchanged), "
        f"skipped: {skipped_count(report.skipped)}",
    ]
    lines.extend(skipped_lines(report.skipped))
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
    try:
        with _breaker_quiet(verbose=getattr(args, "verbose", False)):
            index = asyncio.run(_build(settings, secret(settings.redis_url)))
    except BuildStopped as stopped:
        print(f"citebot: stopped: {kept_text(stopped, again='run it again')}", file=sys.stderr)
        return 130
    if not len(index):
        print("citebot: no document could be read, so every question will be refused")
        return 1
    return 0


@contextlib.contextmanager
def _breaker_quiet(*, verbose: bool) -> Iterator[None]:
    """This command says in one line what Redis trouble meant for it; the breaker's own
    warning (one per outage, right for a bot's log) would be a second line on the terminal."""
    logger = logging.getLogger(redis_guard.__name__)
    level = logger.level
    if not verbose:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


async def _build(settings: Settings, url: str | None) -> Index:
    """The build under the bots' build lock, so a bot's scan and this command never embed the
    same change at once; with Redis also the deployment's shared vectors and the announcement."""
    redis = None if url is None else await _reachable(url, settings)
    lock, _ = coordination(settings.index_dir, redis)
    try:
        await _take(lock)
        try:
            return await _build_locked(settings, redis)
        finally:
            await lock.release()  # also when cancelled (Ctrl-C)
    finally:
        if redis is not None:
            await redis.aclose()


async def _reachable(url: str, settings: Settings) -> GuardedRedis | None:
    """The client when Redis answers; else ``None`` and one line saying what that costs."""
    index_dir = settings.index_dir
    redis = GuardedRedis.from_url(
        url,
        key_prefix=settings.redis_key_prefix,
        connect_timeout_seconds=REDIS_SECONDS,
        socket_timeout_seconds=REDIS_SECONDS,
        timeout_seconds=REDIS_SECONDS,
    )
    client = redis.client
    try:
        await redis.run(client.ping)
    except RedisUnavailable as error:
        await redis.aclose()
        reason = describe(error.__cause__) if error.__cause__ else "no reply"
        print(
            f"citebot: Redis at {redis.location} is unreachable ({reason}); building without "
            f"it: bots using {index_dir} load the new index, bots on other machines are "
            "not told",
            file=sys.stderr,
        )
        return None
    return redis


async def _take(lock: BuildLock) -> None:
    """Wait while a running bot builds; the build after it reuses the vectors it cached."""
    waiting = False
    while not await lock.acquire():
        if not waiting:
            print("citebot: waiting for a running bot's build to finish…", file=sys.stderr)
            waiting = True
        await asyncio.sleep(LOCK_POLL_SECONDS)


async def _build_locked(settings: Settings, redis: GuardedRedis | None) -> Index:
    """The build with the deployment's shared vectors, then the announcement. Bots sharing
    INDEX_DIR see the new manifest anyway; through Redis, bots on other machines hear of it
    too (within the refresher's poll, 2 s). Redis failing now costs only the sharing."""
    builds = BackgroundBuilds()  # a cancelled build stops at once, keeping what it embedded
    embeddings = embeddings_from_settings(settings)
    vector_store = vector_store_from_settings(settings)
    # With a vector store, the store is what every process shares: nothing goes through Redis.
    sharing = None
    if redis is not None and embeddings is not None and vector_store is None:
        sharing = Sharing.over(redis, embeddings)
    shared = None if sharing is None or embeddings is None else sharing.around(embeddings)
    if sharing is not None:
        sharing.bridge.attach()
    # Outermost, so a stop is taken before a batch asks Redis for its vectors too.
    inner = shared or embeddings
    watched = None if inner is None else Watched(inner, stopping=builds.stopping)
    line = ProgressLine(sys.stderr)
    build = functools.partial(
        load_or_build,
        settings.docs_dir,
        settings.index_dir,
        embeddings=watched,
        min_score=settings.min_score,
        on_progress=line,
        on_stage=stoppable(line.stage, builds.stopping),
        vector_store=vector_store,
    )
    try:
        with stop_on_signals(builds, lambda text: print(f"\n{text}", file=sys.stderr, flush=True)):
            index, report = await builds.run(build)
    finally:
        line.close()
        # Off the loop: a build saving what it embedded may still reach Redis through it.
        await asyncio.to_thread(builds.join)
    print(summary(report, settings, fetched=0 if shared is None else shared.fetched))
    if redis is None:
        return index
    lost = []
    if sharing is not None and await sharing.share(index) is None:
        lost.append("vectors not shared (others embed them)")
    try:
        await RedisAnnouncer(redis).announce(index.version)
    except RedisUnavailable as error:
        reason = describe(error.__cause__) if error.__cause__ else "Redis was skipped"
        lost.append(f"running bots were not told through Redis ({reason})")
    if lost:
        print(f"citebot: Redis failed during the build: {'; '.join(lost)}", file=sys.stderr)
    return index
