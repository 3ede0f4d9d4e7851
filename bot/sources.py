"""Where a cited passage is now: the platform-neutral half of a citation click.

A citation button carries a :class:`SourceRef` (chunk id, a prefix of its content hash, its
score), never the passage. On a click the passage comes from today's index: if the chunk still
has the content hash the answer was built from, it is shown as cited (also when reindexing moved
it to another position); if it changed, the clicker is told so and sees the current text of that
section; if its document is gone, they are told that. Each platform renders :class:`Found`
(Slack: an ephemeral message, bot/slack/source_view.py; Feishu: a toast, bot/feishu/actions.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Literal

from bot import texts
from rag import Chunk, Language

HASH_CHARS = 16
"""Hash prefix a button carries: enough to tell versions apart, short enough for any button."""

State = Literal["current", "changed", "gone"]


@dataclass(frozen=True, slots=True)
class SourceRef:
    chunk_id: str
    chunk_hash: str
    score: float

    @property
    def source(self) -> str:
        """The cited document (path relative to DOCS_DIR): what scopes are checked against."""
        return self.chunk_id.rsplit("#", 1)[0]


@dataclass(frozen=True, slots=True)
class Found:
    state: State
    chunks: tuple[Chunk, ...]


def same_version(ref: SourceRef, current_hash: str) -> bool:
    return current_hash.startswith(ref.chunk_hash)


def find(ref: SourceRef, chunk: Chunk | None, all_chunks: Iterable[Chunk]) -> Found:
    """Where the cited passage is now."""
    if chunk is not None and same_version(ref, chunk.hash):
        return Found("current", (chunk,))
    source = ref.source
    same_source = [c for c in all_chunks if c.source == source]
    for candidate in same_source:
        if same_version(ref, candidate.hash):
            return Found("current", (candidate,))
    if chunk is None:
        return Found("gone", ())
    in_section = tuple(c for c in same_source if c.section == chunk.section) or (chunk,)
    return Found("changed", tuple(sorted(in_section, key=lambda c: c.n)))


def dated(chunk: Chunk, language: Language, today: date | None = None) -> str:
    """When the cited document was last updated, and its status when it is not current:
    ``更新于 2025-03-01``, ``Updated 2024-01-05 · superseded``; "" when nothing is known.
    Every citation view shows it (Slack, Feishu, the console, the review cards)."""
    life = chunk.lifecycle
    parts = [f"{texts.SOURCE_UPDATED[language]} {life.updated}"] if life.updated else []
    status = life.shown_status(today or date.today())
    if status is not None:
        parts.append(texts.SOURCE_STATUS[language].get(status, status))
    return " · ".join(parts)


def date_only(chunk: Chunk, language: Language, today: date | None = None) -> str:
    """The short form for a button: ``2025-03-01``, or the status of a source that is not
    current (a button has no room for both)."""
    status = chunk.lifecycle.shown_status(today or date.today())
    if status is not None:
        return texts.SOURCE_STATUS[language].get(status, status)
    return chunk.lifecycle.updated


def with_date(label: str, suffix: str, limit: int) -> str:
    """``label · suffix`` within ``limit`` characters: the label is cut, never the date."""
    if not suffix:
        return label if len(label) <= limit else label[: limit - 1].rstrip() + "…"
    tail = f" · {suffix}"
    room = limit - len(tail)
    if len(label) > room:
        label = label[: max(room - 1, 1)].rstrip() + "…"
    return f"{label}{tail}"
