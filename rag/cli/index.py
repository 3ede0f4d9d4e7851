"""``python -m rag index [--docs DIR]``: build or refresh the persisted index, then summarise.

Only new or changed files are split and embedded (see :func:`rag.ingest.build.load_or_build`); the
summary says how many files were read and skipped (with why), how many chunks were embedded
and how many vectors were reused, how long it took and the resulting index version.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from redis.exceptions import RedisError

from rag.assemble import build_index
from rag.ingest.build import BuildReport
from rag.ingest.coordination import announce_once
from rag.settings import Settings, secret


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("index", help="build or refresh the index of DOCS_DIR")
    parser.add_argument("--docs", type=Path, help="folder of documents (default: DOCS_DIR)")
    parser.set_defaults(func=run)


def summary(report: BuildReport, settings: Settings) -> str:
    lines = [
        f"documents: {settings.docs_dir} -> index: {settings.index_dir}",
        f"files read: {report.files} ({report.chunked_files} split, "
        f"{report.files - report.chunked_files} unchanged), skipped: {len(report.skipped)}",
    ]
    lines.extend(f"  skipped {item.path}: {item.reason}" for item in report.skipped)
    if settings.embeddings == "none":
        vectors = "dense search off (EMBEDDINGS=none)"
    else:
        vectors = f"{report.embedded} embedded, {report.reused} reused"
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
    index, report = build_index(settings, progress=True)
    print(summary(report, settings))
    url = secret(settings.redis_url)
    if url is not None:
        # Bots sharing INDEX_DIR see the new manifest anyway; through Redis, bots on other
        # machines hear of it too (within the refresher's poll, 2 s).
        try:
            asyncio.run(announce_once(url, settings.docs_dir, settings.index_dir, index.version))
        except (RedisError, OSError) as error:
            print(f"citebot: running bots were not told through Redis: {error}", file=sys.stderr)
    if not len(index):
        print("citebot: no document could be read, so every question will be refused")
        return 1
    return 0
