"""The index version: one string that changes whenever anything that changes an answer does.

It keys the answer cache and the manifest, and is what processes announce to each other: the
passages (per source, their ids, hashes and positions), the splitter's shape, the embedder and
the gate (:mod:`rag.search.gate`). Where the vectors live is not part of it: the in-process
matrix and a Qdrant collection give the same answers (:mod:`rag.search.candidates`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from rag.chunks import Chunk, content_hash
from rag.search.gate import GateModel


class SplitShape(Protocol):
    """How chunks were cut (:class:`rag.ingest.splitter.Splitter`): part of the index version."""

    @property
    def chunk_size(self) -> int: ...

    @property
    def chunk_overlap(self) -> int: ...


def index_version(
    chunks: Sequence[Chunk], splitter: SplitShape, embedder: str | None, gate: GateModel
) -> str:
    """Changes whenever a chunk, the splitter, the embedder or the gate changes."""
    by_source: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_source.setdefault(chunk.source, []).append(chunk)
    digests = [(source, chunks_digest(kept)) for source, kept in by_source.items()]
    return version_of(digests, splitter, embedder, gate)


def chunks_digest(chunks: Sequence[Chunk]) -> str:
    """One source's chunks as the index version sees them: stored per file with the manifest,
    so the version of an unchanged folder costs no pass over its passages."""
    rows = [[c.id, c.hash, c.start, c.section, c.link, c.doc_id] for c in chunks]
    return content_hash(json.dumps(rows, ensure_ascii=False))


def version_of(
    digests: Sequence[tuple[str, str]], splitter: SplitShape, embedder: str | None, gate: GateModel
) -> str:
    """:func:`index_version` from each source's :func:`chunks_digest`, in index order."""
    parts: dict[str, Any] = {
        "splitter": [splitter.chunk_size, splitter.chunk_overlap],
        "embedder": embedder,
        "gate": gate.identity,
        "sources": [list(pair) for pair in digests],
    }
    return content_hash(json.dumps(parts, ensure_ascii=False, sort_keys=True))[:16]
