"""Markdown pieces both converters build: tables, fences, quotes, list items."""

from __future__ import annotations

import re

_SPACES = re.compile(r"[ \t\r\n\u00a0]+")


def fold(text: str) -> str:
    """HTML whitespace rules: any run of spaces and newlines is one space."""
    return _SPACES.sub(" ", text)


def table(rows: list[list[str]]) -> str:
    """A pipe table; the first row is the header (Markdown has no table without one)."""
    rows = [row for row in rows if row]
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    cells = [[_cell(text) for text in row] + [""] * (width - len(row)) for row in rows]
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + " --- |" * width]
    lines += ["| " + " | ".join(row) + " |" for row in cells[1:]]
    return "\n".join(lines)


def _cell(text: str) -> str:
    """One line, pipes escaped: a cell holding paragraphs or a list keeps them, joined."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return "; ".join(lines).replace("|", "\\|")


def fence(code: str, language: str = "") -> str:
    """A fenced code block, its fence longer than any backtick run inside."""
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{code.strip(chr(10))}\n{ticks}"


def quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def item(marker: str, body: str) -> str:
    """A list item: the marker before the first line, the rest indented under its text."""
    pad = " " * (len(marker) + 1)
    lines = body.splitlines() or [""]
    rest = [f"{pad}{line}" if line else "" for line in lines[1:]]
    return "\n".join([f"{marker} {lines[0]}", *rest])


def heading(level: int, text: str) -> str:
    """Levels past 6 (Feishu has 9) stay at 6: Markdown has no deeper heading."""
    return f"{'#' * max(1, min(level, 6))} {text.strip()}"


def join(blocks: list[str]) -> str:
    return "\n\n".join(block for block in blocks if block.strip())
