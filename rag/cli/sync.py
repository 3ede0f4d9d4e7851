"""``python -m rag sync [--source NAME]``: fetch what changed in the SOURCES_FILE wikis.

Each source is listed, what changed since its cursor (and what is new or gone) is fetched into
DOCS_DIR with a progress bar, and one line says how it went: added / changed / removed /
failed with reasons, and the API calls it cost. A source that fails keeps its last good copy.
Then ``python -m rag index`` (or a running bot's next scan) indexes the changed files.
Exit status: 0 all synced, 1 some source or document failed, 2 a settings problem.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from rag.settings import Settings, SettingsError
from rag.sync.sources_file import read_sources
from rag.sync.sync_all import SyncBusy, sync_sources

WAIT_SECONDS = 600.0
"""How long the command waits for a running bot's sync to finish."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "sync", help="fetch what changed in the SOURCES_FILE wikis into DOCS_DIR"
    )
    parser.add_argument("--source", metavar="NAME", help="only this source of SOURCES_FILE")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    try:
        sources = read_sources(settings.sources_file, os.environ)
        if sources is None:
            msg = "SOURCES_FILE is not set: set it to the TOML file of wikis (guide/sources.md)"
            raise SettingsError(msg)
        summaries = asyncio.run(
            sync_sources(
                sources,
                docs_dir=settings.docs_dir,
                index_dir=settings.index_dir,
                only=args.source,
                progress=sys.stderr.isatty(),
                wait_seconds=WAIT_SECONDS,
            )
        )
    except (SettingsError, SyncBusy) as error:
        print(f"citebot: {error}", file=sys.stderr)
        return 2
    for summary in summaries:
        print(summary.line())
    return 0 if all(s.last.outcome == "ok" for s in summaries) else 1
