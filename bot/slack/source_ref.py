"""The small id a citation button carries: which chunk, which version of it, how it scored.

The passage itself is never put in the button (values are limited to 2000 characters and are
visible to anyone who inspects the payload); the click handler looks the chunk up in the index
by id and compares the content hash to tell whether the source changed since the answer.

    value = "v1|<hash prefix>|<score>|<chunk id>"      chunk id last: it may contain "|"
"""

from __future__ import annotations

from bot.slack.limits import BUTTON_VALUE
from bot.sources import HASH_CHARS, SourceRef
from bot.sources import same_version as same_version  # re-exported for the Slack listeners
from rag import Hit

VERSION = "v1"


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
