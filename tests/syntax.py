"""Parse the project's Python files for tests that read its code (imports, sizes)."""

from __future__ import annotations

import ast
import gc
from pathlib import Path


def parse(path: Path) -> ast.Module:
    """``path``'s syntax tree, with the garbage collector held off while it is built.

    CPython 3.11 raises "SystemError: AST constructor recursion depth mismatch" when a
    collection during the build runs a finalizer that fails (cpython#106905) — as a Redis
    connection an earlier failed test left open does. With the collector paused, such a
    finalizer runs after the build, and that failure stays with the test that caused it.
    """
    source = path.read_text(encoding="utf-8")
    gc.disable()
    try:
        return ast.parse(source, filename=str(path))
    finally:
        gc.enable()
