"""The answer cache: the same question about the same documents is answered once.

Colleagues ask the same things all day ("年假怎么算"); each repeat would cost a model call
and seconds of waiting. The key holds everything that changes an answer — the normalised
question, the asker's scope, the index version, the chat model and the prompt version — so
reindexing changed documents, switching models or editing the prompt never serves an answer
built from what was there before (:func:`cache_key`).

What is kept: answers that passed the citation check (``CACHE_TTL_SECONDS``) and refusals
(``REFUSAL_TTL_SECONDS``, shorter: a document added later should be found soon). Never
``Unverified`` drafts, never failures — an exception from ``compute`` reaches the caller and
nothing is stored. A hit is the stored result with ``provenance.cached_at`` set to when it was
first given and ``timings_ms`` the lookup's own (``{"cache": ms}``).

Implementations: :class:`MemoryCache` (one process, REDIS_URL unset) and
:class:`rag.cache.redis_backend.RedisCache` (shared by every bot process); ``rag.assemble``
chooses one. Both run concurrent
identical questions once (:mod:`rag.cache.singleflight`); Redis adds a cross-process lock.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Protocol

from cachetools import TLRUCache

from rag.cache.singleflight import SingleFlight
from rag.errors import CitebotError
from rag.results import Answer, Refusal, Result
from rag.settings import CACHE_TTL_SECONDS, REFUSAL_TTL_SECONDS

KEY_LAYOUT = "v2"
"""Changes when what goes into a key changes, so old keys are simply never asked for again."""

Compute = Callable[[], Awaitable[Result]]


class CacheUnavailable(CitebotError, RuntimeError):
    """An administrative operation (stats, clear) could not reach the cache's store."""


# --- keys ----------------------------------------------------------------------------------


def cache_key(digest: str, *, index_version: str, model_id: str, prompt_version: str) -> str:
    """``v2:<blake2b>`` over everything that changes the answer; stable across processes.
    ``digest``: the question's :func:`question_digest` (normalised question and scope), which a
    withdrawal can carry when the question itself no longer fits a button."""
    parts = [digest, index_version, model_id, prompt_version]
    payload = json.dumps(parts, ensure_ascii=False).encode("utf-8")
    return f"{KEY_LAYOUT}:{hashlib.blake2b(payload, digest_size=20).hexdigest()}"


# --- what is kept, and for how long ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CachePolicy:
    """How long answers and refusals are kept; the defaults are the settings' own."""

    ttl_seconds: float = CACHE_TTL_SECONDS
    refusal_ttl_seconds: float = REFUSAL_TTL_SECONDS

    def __post_init__(self) -> None:
        for name in ("ttl_seconds", "refusal_ttl_seconds"):
            value = getattr(self, name)
            if not value > 0:
                msg = f"{name} ({value}) must be a positive number of seconds"
                raise ValueError(msg)

    def ttl_for(self, result: Result) -> float | None:
        """Seconds to keep ``result``; ``None``: never stored."""
        if isinstance(result, Answer):
            return self.ttl_seconds
        if isinstance(result, Refusal):
            return self.refusal_ttl_seconds
        return None


def served_from_cache(result: Result, first_given: datetime, started: float) -> Result:
    """The stored result as a hit: when it was first given, and what the lookup cost."""
    lookup_ms = round((time.perf_counter() - started) * 1000, 3)
    provenance = replace(result.provenance, cached_at=first_given)
    return replace(result, provenance=provenance, timings_ms={"cache": lookup_ms})


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class CacheStats:
    backend: str
    """``memory`` (this process only) or ``redis`` (shared)."""
    hits: int
    misses: int
    """Questions that were computed because nothing was stored."""
    shared: int
    """Questions that waited for an identical question's computation instead of their own."""
    keys: int
    memory_bytes: int | None = None

    @property
    def hit_rate(self) -> float | None:
        asked = self.hits + self.misses + self.shared
        return None if asked == 0 else self.hits / asked


class AnswerCache(Protocol):
    async def get_or_compute(self, key: str, compute: Compute) -> Result:
        """The stored result, or ``compute()`` once for all concurrent callers of ``key``."""
        ...

    async def forget(self, key: str) -> Result | None:
        """Drop ``key``'s stored result (an answer people voted down); what it was, if any.
        Raises nothing for a store that is away: the withdrawal's own mark still holds."""
        ...

    async def stats(self) -> CacheStats: ...

    async def clear(self) -> int:
        """Forget every stored result; how many there were."""
        ...

    async def aclose(self) -> None: ...


# --- in-process ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Entry:
    result: Result
    first_given: datetime
    ttl_seconds: float


class MemoryCache:
    """A TTL cache inside this process: the local demo and tests (REDIS_URL unset).

    cachetools' TLRUCache: each entry expires after its own TTL (answers and refusals differ),
    and beyond ``max_entries`` the least recently used entry is dropped."""

    def __init__(
        self,
        *,
        policy: CachePolicy | None = None,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = utc_now,
    ) -> None:
        if max_entries < 1:
            msg = f"max_entries ({max_entries}) must be at least 1"
            raise ValueError(msg)
        self.policy = policy or CachePolicy()
        self.max_entries = max_entries
        self._now = now
        self._entries: TLRUCache[str, _Entry] = TLRUCache(
            max_entries, ttu=lambda _key, entry, at: at + entry.ttl_seconds, timer=clock
        )
        self._flight: SingleFlight[Result] = SingleFlight()
        self._hits = self._misses = self._shared = 0

    async def get_or_compute(self, key: str, compute: Compute) -> Result:
        started = time.perf_counter()
        entry = self._entries.get(key)
        if entry is not None:
            self._hits += 1
            return served_from_cache(entry.result, entry.first_given, started)
        result, shared = await self._flight.run(key, lambda: self._compute(key, compute))
        if shared:
            self._shared += 1
        else:
            self._misses += 1
        return result

    async def _compute(self, key: str, compute: Compute) -> Result:
        result = await compute()
        ttl = self.policy.ttl_for(result)
        if ttl is not None:
            self._entries[key] = _Entry(result, self._now(), ttl)
        return result

    async def forget(self, key: str) -> Result | None:
        entry = self._entries.pop(key, None)
        return None if entry is None else entry.result

    async def stats(self) -> CacheStats:
        self._entries.expire()
        return CacheStats("memory", self._hits, self._misses, self._shared, len(self._entries))

    async def clear(self) -> int:
        self._entries.expire()
        count = len(self._entries)
        self._entries.clear()
        return count

    async def aclose(self) -> None:
        self._entries.clear()
