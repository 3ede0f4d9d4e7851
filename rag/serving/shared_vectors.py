"""Passage vectors shared through Redis: a corpus is embedded once, not once per machine.

Every machine keeps its own embedding cache under INDEX_DIR (the fast path, and all there is
without Redis). With REDIS_URL set, a build also reads the vectors another process already
computed instead of embedding those passages again (:class:`SharedEmbeddings`, behind the local
cache), and after each full build publishes the vectors of its passages
(:meth:`SharedVectors.publish`), so a process on another machine that rebuilds later reads them.

In Redis (one database and key prefix per deployment, see :mod:`rag.serving.coordination`):

    {prefix}index:vectors:<embedder>        hash: passage content hash -> float32 bytes
    {prefix}index:vectors:<embedder>:used   sorted set: content hash -> when a build last used it

Vectors are the embedder's own float32 values, byte for byte (1.5 KB a passage for e5-small:
15 MB for 10k passages), so a machine that reads them builds exactly the index the builder
built. The hash holds the passages of the current corpus plus what was replaced less than
:data:`KEEP_REPLACED_SECONDS` ago: a machine whose documents lag behind (a later ``git pull``)
still finds its vectors, and one that runs ahead doesn't delete its peers'.

Redis trouble never stops a build: the shared :class:`~rag.storage.redis_guard.GuardedRedis` raises
:class:`~rag.storage.redis_guard.RedisUnavailable`, the build embeds locally, nothing is lost.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from rag.chunks import content_hash
from rag.serving.coordination import INDEX_KEYS
from rag.storage.redis_guard import GuardedRedis, RedisUnavailable

logger = logging.getLogger(__name__)

Vector = npt.NDArray[np.float32]

KEEP_REPLACED_SECONDS = 3600.0
"""How long a vector no build uses any more stays shared (for machines whose documents lag)."""
BATCH = 256
"""Fields per Redis command: 384 KB of e5 vectors, well inside one call's timeout."""
TIMEOUT_SECONDS = 5.0
"""One command's bound: larger than the answer cache's, a build is not a question."""
DTYPE = np.dtype("<f4")


def encode(vector: Sequence[float] | Vector) -> bytes:
    return np.asarray(vector, dtype=DTYPE).tobytes()


def decode(stored: Mapping[str, bytes]) -> dict[str, Vector]:
    """The readable vectors of ``stored``; none when their sizes disagree (one embedder's
    vectors all have one size: anything else is damage, and embedding again repairs it)."""
    vectors: dict[str, Vector] = {}
    for key, value in stored.items():
        if not value or len(value) % DTYPE.itemsize:
            continue
        vector = np.frombuffer(value, dtype=DTYPE).astype(np.float32)
        if np.isfinite(vector).all():
            vectors[key] = vector
    if len({vector.shape for vector in vectors.values()}) > 1:
        logger.warning("shared vectors of different sizes; embedding these passages here")
        return {}
    return vectors


def _batches(items: Sequence[Any]) -> Iterable[Sequence[Any]]:
    return (items[start : start + BATCH] for start in range(0, len(items), BATCH))


@dataclass(frozen=True, slots=True)
class Published:
    added: int
    """Vectors Redis lacked and now holds."""
    removed: int
    """Vectors no build used for :data:`KEEP_REPLACED_SECONDS`, deleted."""
    stored: int
    """Vectors Redis holds now."""


class SharedVectors:
    """The deployment's vectors for one embedder, in Redis, through the process's one client."""

    def __init__(
        self,
        redis: GuardedRedis,
        embedder: str,
        *,
        keep_replaced_seconds: float = KEEP_REPLACED_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if keep_replaced_seconds < 0:
            msg = f"keep_replaced_seconds ({keep_replaced_seconds}) must not be negative"
            raise ValueError(msg)
        self.redis = redis
        self.embedder = embedder
        self.key = f"{redis.key_prefix}{INDEX_KEYS}vectors:{content_hash(embedder)}"
        self.used_key = f"{self.key}:used"
        self.keep_replaced_seconds = keep_replaced_seconds
        self.clock = clock

    async def _run(self, command: Callable[[], Any]) -> Any:
        return await self.redis.run(command, timeout_seconds=TIMEOUT_SECONDS)

    async def fetch(self, keys: Sequence[str]) -> dict[str, bytes]:
        """The stored vectors of ``keys`` (content hashes), as bytes: decoding is left to the
        caller's thread. What was found before Redis failed, possibly nothing."""
        found: dict[str, bytes] = {}
        client = self.redis.client
        for batch in _batches(list(keys)):
            try:
                values = await self._run(partial(client.hmget, self.key, list(batch)))
            except RedisUnavailable:
                break
            found.update((k, v) for k, v in zip(batch, values, strict=True) if v is not None)
        return found

    async def publish(self, vectors: Mapping[str, bytes]) -> Published | None:
        """Share ``vectors`` (a build's passages, by content hash): add the ones Redis lacks,
        mark all as used now, and delete the ones no build used for a while. ``None`` when
        Redis failed (the next build's publish completes what this one could not)."""
        client = self.redis.client
        now = self.clock()
        keys = list(vectors)
        try:
            # Marked before written: every vector in the hash has a mark, so the sweep sees it.
            for batch in _batches(keys):
                await self._run(partial(client.zadd, self.used_key, dict.fromkeys(batch, now)))
            stored = {key.decode() for key in await self._run(partial(client.hkeys, self.key))}
            lacking = [key for key in keys if key not in stored]
            for batch in _batches(lacking):
                mapping = {key: vectors[key] for key in batch}
                await self._run(partial(client.hset, self.key, mapping=mapping))
            removed = await self._sweep(now - self.keep_replaced_seconds)
            count = await self._run(partial(client.hlen, self.key))
        except RedisUnavailable:
            return None
        return Published(len(lacking), removed, count)

    async def _sweep(self, before: float) -> int:
        """Delete what no build marked since ``before`` (exclusive: this build's marks stay)."""
        client = self.redis.client
        older = partial(client.zrangebyscore, self.used_key, "-inf", f"({before!r}")
        stale = [key.decode() for key in await self._run(older)]
        removed = 0
        for batch in _batches(stale):
            removed += await self._run(partial(client.hdel, self.key, *batch))
            await self._run(partial(client.zrem, self.used_key, *batch))
        return removed
