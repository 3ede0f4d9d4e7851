"""JSON Lines input of the batch commands (``rag ask --questions``, ``rag eval``, ``rag
calibrate``): one object a line, blank lines skipped, a byte-order mark tolerated, and a line
that is not an object reported with its file and line number, in the command's own error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rag.errors import CitebotError


def json_objects(path: Path, error: type[CitebotError]) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank line; raises ``error`` ("``path:line``: not
    a JSON object") at the first line that is not one."""
    with path.open(encoding="utf-8-sig") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as decoding:
                msg = f"{path}:{number}: not a JSON object ({decoding.msg})"
                raise error(msg) from None
            if not isinstance(record, dict):
                msg = f"{path}:{number}: not a JSON object"
                raise error(msg)
            yield number, record
