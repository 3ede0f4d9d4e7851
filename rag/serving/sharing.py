"""A build thread that reads and publishes the shared vectors through the serving loop.

A build runs in a thread (it may embed for minutes; questions must not wait), but the process's
one Redis client is asynchronous and its connections belong to the event loop that serves.
:class:`LoopBridge` runs each Redis call on that loop and lets the build thread wait for the
reply. Where no serving loop is attached — the first build at start-up, before the loop runs;
the console chat — or when called on the loop itself, the bridge answers "nothing shared" and
the build embeds locally, exactly as without Redis.

:class:`Sharing` puts :class:`SharedEmbeddings` between the local embedding cache and the
embedder, and publishes each full build's vectors before the build returns (so before the new
version is announced: whoever hears of it finds the vectors).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
from langchain_core.embeddings import Embeddings

from rag.chunks import content_hash
from rag.search.embeddings import CachedEmbeddings, embedder_identity
from rag.search.index import Index
from rag.serving.refresh import Build, Built
from rag.serving.shared_vectors import Published, SharedVectors, Vector, decode, encode
from rag.storage.redis_guard import GuardedRedis

logger = logging.getLogger(__name__)

T = TypeVar("T")

BRIDGE_TIMEOUT_SECONDS = 60.0
"""A safety net only: each Redis command is bounded by the guarded client (a few seconds)."""


class LoopBridge:
    def __init__(self, *, timeout_seconds: float = BRIDGE_TIMEOUT_SECONDS) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.timeout_seconds = timeout_seconds

    def attach(self) -> None:
        """Called on the serving loop: from now on build threads reach Redis through it."""
        self.loop = asyncio.get_running_loop()

    def call(self, make: Callable[[], Coroutine[Any, Any, T]], default: T) -> T:
        """``await make()`` on the attached loop, from another thread; ``default`` when that
        cannot be (no loop, closed, or this *is* the loop's thread: waiting would deadlock)."""
        loop = self.loop
        if loop is None or loop.is_closed() or _running_loop() is loop:
            return default
        coroutine = make()
        try:
            future = asyncio.run_coroutine_threadsafe(coroutine, loop)
        except RuntimeError:  # the loop closed meanwhile (shutdown)
            coroutine.close()
            return default
        try:
            return future.result(self.timeout_seconds)
        except concurrent.futures.TimeoutError:
            future.cancel()
            logger.warning("Redis call from the build took over %.0f s", self.timeout_seconds)
            return default


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class SharedEmbeddings(Embeddings):
    """``inner`` behind the shared vectors: a passage another process embedded is read from
    Redis; only the rest is embedded here. Same identity as ``inner`` (same vector space), so
    the local cache around it keeps its file. Queries pass straight through."""

    def __init__(self, inner: Embeddings, vectors: SharedVectors, bridge: LoopBridge) -> None:
        self.inner = inner
        self.identity = embedder_identity(inner)
        self.vectors = vectors
        self.bridge = bridge
        self.fetched = 0
        """Passages read from Redis since construction."""
        self.embedded = 0
        """Passages sent to ``inner`` since construction."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        keys = [content_hash(text) for text in texts]
        unique = list(dict.fromkeys(keys))
        found = decode(self.bridge.call(lambda: self.vectors.fetch(unique), {}))
        missing = [key for key in unique if key not in found]
        if missing:
            text_of = dict(zip(keys, texts, strict=True))
            fresh = self.inner.embed_documents([text_of[key] for key in missing])
            found.update(
                (k, np.asarray(v, np.float32)) for k, v in zip(missing, fresh, strict=True)
            )
        self.fetched += len(unique) - len(missing)
        self.embedded += len(missing)
        return [found[key].tolist() for key in keys]

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def index_vectors(index: Index) -> dict[str, bytes]:
    """The vectors a full index was built from, by passage content hash, as the local cache
    holds them (not the search's normalised copy): byte for byte what the embedder returned."""
    cached = index.embeddings
    if not isinstance(cached, CachedEmbeddings):
        return {}
    stored: dict[str, Vector] = cached.stored([chunk.vector_key for chunk in index.chunks])
    return {key: encode(vector) for key, vector in stored.items()}


@dataclass
class Sharing:
    """The vectors of one embedder shared by every process on the deployment's Redis."""

    vectors: SharedVectors
    bridge: LoopBridge = field(default_factory=LoopBridge)

    @classmethod
    def over(cls, redis: GuardedRedis, embeddings: Embeddings) -> Sharing:
        return cls(SharedVectors(redis, embedder_identity(embeddings)))

    def around(self, embeddings: Embeddings) -> SharedEmbeddings:
        return SharedEmbeddings(embeddings, self.vectors, self.bridge)

    async def share(self, index: Index) -> Published | None:
        """Share a served index's vectors, on the loop (the first build ran before the loop,
        so nothing was shared yet: a machine joining before the next change still reads)."""
        return await self.vectors.publish(await asyncio.to_thread(index_vectors, index))

    def publishing(self, build: Build, embeddings: SharedEmbeddings) -> Build:
        """``build``, then its vectors shared (full builds; a lexical one has none)."""

        def run() -> Built:
            fetched, embedded = embeddings.fetched, embeddings.embedded
            built = build()
            if built.mode == "full":
                vectors = index_vectors(built.index)
                published = self.bridge.call(lambda: self.vectors.publish(vectors), None)
                _log(embeddings.fetched - fetched, embeddings.embedded - embedded, published)
            return built

        return run


def _log(fetched: int, embedded: int, published: Published | None) -> None:
    if published is None:
        logger.info("vectors: %d read from Redis, %d embedded here; not shared", fetched, embedded)
    elif fetched or embedded or published.added or published.removed:
        logger.info(
            "vectors: %d read from Redis, %d embedded here; shared +%d -%d (%d in Redis)",
            fetched,
            embedded,
            published.added,
            published.removed,
            published.stored,
        )
