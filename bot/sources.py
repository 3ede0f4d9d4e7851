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
from typing import Literal

from rag import Chunk

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
