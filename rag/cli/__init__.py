"""``python -m rag``: the terminal edge of the answer core.

Each subcommand lives in its own module with ``add_parser(subparsers)``; the parser it adds
sets ``func(args, settings) -> int``. Settings are read here, once, from the environment
(and ``.env`` in development) and passed down: before the subcommands are imported, so a bad
setting is reported at once (even for ``--help``).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Callable, Sequence

from dotenv import load_dotenv

from rag.settings import Settings, SettingsError

COMMANDS: tuple[str, ...] = (
    "ask",
    "index",
    "sync",
    "eval",
    "calibrate",
    "cache",
    "check-eval",
    "report",
)
"""Subcommand modules under ``rag.cli``, in the order ``--help`` lists them."""

Handler = Callable[[argparse.Namespace, Settings], int]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """``only``: the one subcommand to load (its module's imports are the command's start-up
    time: ``report`` alone brings in matplotlib); ``None`` loads all, for ``--help``."""
    parser = argparse.ArgumentParser(
        prog="python -m rag",
        description="Index documents, ask questions and measure retrieval for citebot.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS if only is None else (only,):
        importlib.import_module(f"rag.cli.{name.replace('-', '_')}").add_parser(subparsers)
    _describe(subparsers)
    return parser


def _describe(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Each subcommand's ``--help`` opens with the line the command list shows for it (argparse
    leaves a subparser without a description otherwise), its own subcommands' too."""
    for listed in subparsers._choices_actions:
        command = subparsers.choices[listed.dest]
        if command.description is None and listed.help:
            command.description = listed.help[0].upper() + listed.help[1:] + "."
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                _describe(action)


def _command(argv: Sequence[str]) -> str | None:
    """The subcommand named by ``argv`` when it is one (the first word not an option)."""
    words = [word for word in argv if not word.startswith("-")]
    return words[0] if words and words[0] in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    load_dotenv(override=False)
    # Settings first: the subcommands' modules bring the index, embeddings and the checker
    # (seconds of imports), and a typo in .env should be reported before any of that.
    try:
        settings = Settings.from_env(os.environ)
    except SettingsError as error:
        print(f"citebot: {error}", file=sys.stderr)
        return 2
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(_command(argv)).parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    handler: Handler = args.func
    try:
        return handler(args, settings)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
