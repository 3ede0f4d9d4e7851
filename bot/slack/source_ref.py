"""The small id a citation button carries: which chunk, which version of it, how it scored.

The passage itself is never put in the button (values are limited to 2000 characters and are
visible to anyone who inspects the payload); the click handler looks the chunk up in the index
by id and compares the content hash to tell whether the source changed since the answer.

    value = "v1|<hash prefix>|<score>|<chunk id>"      chunk id last: it may contain "|"
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.slack.limits import BUTTON_VALUE
from rag import Hit

VERSION = "v1"
HASH_CHARS = 16


@dataclass(frozen=True, slots=True)
class SourceRef:
    chunk_id: str
    chunk_hash: str
    score: float


def encode(hit: Hit) -> str:
    value = f"{VERSION}|{hit.chunk.hash[:HASH_CHARS]}|{hit.score:.4f}|{hit.chunk.id}"
    if len(value) > BUTTON_VALUE:
        msg = (
            f"source id for {hit.chunk.id[:80]!r}… is {len(value)} characters (max {BUTTON_VALUE})"
        )
        raise ValueError(msg)
    return value


def decode(value: str) -> SourceRef | None:
    """The reference in a button value; ``None`` when it is not one of ours."""
    parts = value.split("|", 3)
    if len(parts) != 4 or parts[0] != VERSION or not parts[3]:
        return None
    try:
        score = float(parts[2])
    except ValueError:
        return None
    return SourceRef(chunk_id=parts[3], chunk_hash=parts[1], score=score)


def same_version(ref: SourceRef, current_hash: str) -> bool:
    return current_hash.startswith(ref.chunk_hash)
