"""Every ``python -m rag`` subcommand's ``--help`` says what the command does."""

from __future__ import annotations

import argparse

import pytest

from rag.cli import COMMANDS, build_parser


def _help(*words: str) -> str:
    parser = build_parser(words[0])
    for word in words:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[word]
    return parser.format_help()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_subcommands_help_has_a_description_line(command: str) -> None:
    listed = build_parser().format_help()
    page = _help(command)
    description = page.split("\n\n")[1].strip()  # after the usage, before the arguments
    assert not description.startswith(("options:", "positional arguments:"))
    # The same words as the command's line in `python -m rag --help`, as a sentence.
    assert description.rstrip(".").lower()[:40] in " ".join(listed.split()).lower()


@pytest.mark.parametrize("action", ["stats", "clear"])
def test_the_cache_actions_help_has_a_description_line(action: str) -> None:
    page = _help("cache", action)
    assert not page.split("\n\n")[1].startswith(("options:", "positional arguments:"))
