"""guide/operations.md's settings table is the one reference: every setting the bot and the CLI
read, each with its default, held here to the settings classes (as tests/test_env_example.py
holds .env.example). The commands and file types the docs list are held to the code too."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bot.feishu.settings import FeishuSettings
from bot.settings import BotSettings
from rag.cli import COMMANDS
from rag.ingest.loaders import SUPPORTED_SUFFIXES
from rag.settings import Settings
from tests.test_env_example import _names

ROOT = Path(__file__).resolve().parents[1]
OPERATIONS = ROOT / "guide" / "operations.md"
CLASSES = (Settings, BotSettings, FeishuSettings)
UNSET_WORDS = ("unset", "required", "calibrated")
"""How the table writes a setting with no value by default (``None``, an empty list)."""


def _section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def _rows(section: str) -> list[list[str]]:
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [[cell.strip() for cell in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows]


def table() -> dict[str, str]:
    """Each setting of the Configuration table -> its default as written (one of the
    comma-separated defaults when a row names several settings and gives one each)."""
    found: dict[str, str] = {}
    for names_cell, _, default_cell in _rows(
        _section(OPERATIONS.read_text("utf-8"), "Configuration")
    ):
        names = re.findall(r"`([A-Z][A-Z0-9_]*)`", names_cell)
        parts = [part.strip() for part in default_cell.split(", ")]
        for n, name in enumerate(names):
            found[name] = parts[n] if len(parts) == len(names) else default_cell
    return found


def defaults() -> dict[str, Any]:
    read: dict[str, Any] = {}
    for settings in CLASSES:
        names = _names(settings)
        for field, info in settings.model_fields.items():
            alias = info.validation_alias
            name = alias if isinstance(alias, str) else field.upper()
            if name in names:  # a required one (FEISHU_APP_ID) has no default: unset
                read[name] = None if info.is_required() else info.default
    return read


def as_written(value: Any) -> str | None:
    """A default as the table writes it; ``None`` for "no value"."""
    if value is None or value == ():
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def test_the_table_names_exactly_the_settings_that_are_read() -> None:
    written, read = set(table()), set(defaults())
    assert written - read == set(), "in guide/operations.md but read by nothing"
    assert read - written == set(), "read but missing from guide/operations.md's table"


@pytest.mark.parametrize("name", sorted(defaults()))
def test_each_settings_default_is_the_one_the_code_has(name: str) -> None:
    written = table()[name].replace("`", "")
    expected = as_written(defaults()[name])
    if expected is None:
        assert written.startswith(UNSET_WORDS), f"{name}: {written!r} for no default"
    else:
        assert written == expected, f"{name}: the table says {written!r}, the code {expected!r}"


def test_every_rag_command_is_in_the_readme_and_the_commands_table() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    listed = re.search(r"`python -m rag ([a-z-]+(?: \| [a-z-]+)+)`", " ".join(readme.split()))
    assert listed is not None, "the README's list of commands"
    assert {word.strip() for word in listed[1].split("|")} == set(COMMANDS)
    commands = _section(OPERATIONS.read_text("utf-8"), "Commands")
    in_table = {m for m in re.findall(r"^\| `python -m rag ([a-z-]+)", commands, re.MULTILINE)}
    assert in_table == set(COMMANDS)


@pytest.mark.parametrize("doc", [".env.example", "README.md"])
def test_the_file_types_listed_are_those_read(doc: str) -> None:
    text = (ROOT / doc).read_text("utf-8")
    lists = re.findall(r"(?:\.[a-z]+ ){3,}\.[a-z]+", text)
    assert lists, f"{doc} lists the document types"
    assert [set(found.split()) for found in lists] == [set(SUPPORTED_SUFFIXES)] * len(lists)
