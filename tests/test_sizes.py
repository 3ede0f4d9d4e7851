"""Small modules and functions in bot/ and rag/: a newcomer reads a module in one sitting and a
function on one screen. Over a limit means split it (by stage, by step), not raise the limit."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.syntax import parse

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "rag")
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 60
"""From the ``def`` line (decorators excluded) to the last line, nested functions included."""


def _modules() -> list[Path]:
    found = sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))
    assert len(found) > 50, "the packages were not found: the check would pass on nothing"
    return found


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_no_module_is_over_300_lines() -> None:
    long = {
        _name(path): lines
        for path in _modules()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_function_is_over_60_lines() -> None:
    long: dict[str, int] = {}
    for path in _modules():
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                where = f"{_name(path)} {node.name}"
                if lines > MAX_FUNCTION_LINES:
                    long[f"{where} (line {node.lineno})"] = lines
    assert long == {}
