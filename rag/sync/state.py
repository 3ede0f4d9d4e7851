"""What a sync keeps under INDEX_DIR/sync/<source>.json: its cursor, the files it wrote, and how
the last sync went (for ``/healthz``, ``rag report`` and the next sync).

The files it wrote are the only ones a sync ever removes: whatever else is under DOCS_DIR
(a hand-written ``confluence/README.md``) is not its to delete.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SYNC_FOLDER = "sync"


@dataclass
class Synced:
    path: str
    """Relative to DOCS_DIR."""
    modified: str
    where: str = ""


@dataclass
class LastSync:
    at: str
    outcome: str
    """``ok``, ``partial`` (some documents failed) or ``failed`` (nothing could be listed)."""
    added: int = 0
    changed: int = 0
    removed: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    """(document, reason) of each document that could not be fetched or written."""
    error: str | None = None
    calls: int = 0
    seconds: float = 0.0


@dataclass
class SourceState:
    cursor: str | None = None
    documents: dict[str, Synced] = field(default_factory=dict)
    last: LastSync | None = None
    kind: str = ""


def state_path(index_dir: Path, name: str) -> Path:
    return index_dir / SYNC_FOLDER / f"{name}.json"


def load_state(index_dir: Path, name: str) -> SourceState:
    """The stored state; a missing or unreadable file is a first sync (everything fetched)."""
    try:
        raw = json.loads(state_path(index_dir, name).read_text(encoding="utf-8"))
        last = raw.get("last")
        return SourceState(
            cursor=raw.get("cursor"),
            documents={key: Synced(**value) for key, value in raw["documents"].items()},
            last=None
            if last is None
            else LastSync(**{**last, "failed": [tuple(f) for f in last["failed"]]}),
            kind=str(raw.get("kind") or ""),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return SourceState()


def save_state(index_dir: Path, name: str, state: SourceState) -> None:
    path = state_path(index_dir, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        json.dump(asdict(state), stream, ensure_ascii=False, indent=1)
    os.replace(temporary, path)


def describe(index_dir: Path, names: list[str] | None = None) -> list[dict[str, Any]]:
    """Each source's last sync as ``/healthz`` and ``rag report`` show it (no document text)."""
    folder = index_dir / SYNC_FOLDER
    if names is None:
        names = sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []
    shown = []
    for name in names:
        state = load_state(index_dir, name)
        last = state.last
        shown.append(
            {
                "source": name,
                "kind": state.kind,
                "documents": len(state.documents),
                "last_sync": None
                if last is None
                else {
                    "at": last.at,
                    "outcome": last.outcome,
                    "added": last.added,
                    "changed": last.changed,
                    "removed": last.removed,
                    "failed": [{"document": d, "reason": r} for d, r in last.failed],
                    "error": last.error,
                    "api_calls": last.calls,
                    "seconds": last.seconds,
                },
            }
        )
    return shown
