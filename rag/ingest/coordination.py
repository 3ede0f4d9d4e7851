"""How bot processes sharing one corpus agree on who builds and learn what was built.

- A **build lock**, so a changed corpus is embedded once: in Redis (``SET NX PX``, renewed while
  the build runs, so a builder that dies frees it within :data:`LOCK_SECONDS`) when REDIS_URL is
  set, else an ``flock`` on ``INDEX_DIR/.build.lock`` (processes on one machine).
- **Where a new version is announced**: always the manifest in INDEX_DIR (which every build,
  also ``python -m rag index``, writes last); with Redis also a key every process polls, so
  processes on other machines hear of it too.

The corpus is named by its folders, so two deployments sharing one Redis don't interfere.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
import secrets
from pathlib import Path
from typing import IO, Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

from rag.chunks import content_hash

logger = logging.getLogger(__name__)

LOCK_SECONDS = 30.0
PREFIX = "citebot:index:"
MANIFEST_FILE = "manifest.json"


def corpus_id(docs_dir: Path, index_dir: Path) -> str:
    return content_hash(f"{docs_dir.resolve()}\n{index_dir.resolve()}")[:12]


class BuildLock(Protocol):
    async def acquire(self) -> bool:
        """Take the lock if nobody holds it; never waits."""

    async def release(self) -> None: ...


class Announcer(Protocol):
    async def latest(self) -> str | None:
        """The newest version announced, ``None`` when unknown."""

    async def announce(self, version: str) -> None: ...


class FileLock:
    def __init__(self, index_dir: Path) -> None:
        self.path = index_dir / ".build.lock"
        self._file: IO[str] | None = None

    async def acquire(self) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        file = self.path.open("a")
        try:
            fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            file.close()
            return False
        self._file = file
        return True

    async def release(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None


class RedisLock:
    _RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end"
    _RENEW = (
        "if redis.call('get', KEYS[1]) == ARGV[1] then "
        "return redis.call('pexpire', KEYS[1], ARGV[2]) end"
    )

    def __init__(self, redis: Redis, corpus: str, *, seconds: float = LOCK_SECONDS) -> None:
        self._redis = redis
        self.key = f"{PREFIX}{corpus}:build-lock"
        self._ms = int(seconds * 1000)
        self._token = ""
        self._renewing: asyncio.Task[None] | None = None

    async def acquire(self) -> bool:
        token = secrets.token_hex(8)
        if not await self._redis.set(self.key, token, nx=True, px=self._ms):
            return False
        self._token = token
        self._renewing = asyncio.create_task(self._renew())
        return True

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self._ms / 3000)
            with contextlib.suppress(RedisError, OSError):
                await self._redis.eval(self._RENEW, 1, self.key, self._token, self._ms)

    async def release(self) -> None:
        if self._renewing is not None:
            self._renewing.cancel()
            self._renewing = None
        if self._token:
            await self._redis.eval(self._RELEASE, 1, self.key, self._token)
            self._token = ""


class ManifestAnnouncer:
    """The version in INDEX_DIR's manifest, re-read only when the file changed."""

    def __init__(self, index_dir: Path) -> None:
        self.path = index_dir / MANIFEST_FILE
        self._seen: tuple[int, int] | None = None
        self._version: str | None = None

    async def latest(self) -> str | None:
        try:
            stat = os.stat(self.path)
        except OSError:
            return None
        if (stat.st_mtime_ns, stat.st_size) != self._seen:
            self._seen = (stat.st_mtime_ns, stat.st_size)
            self._version = await asyncio.to_thread(self._read)
        return self._version

    def _read(self) -> str | None:
        try:
            version = json.loads(self.path.read_text(encoding="utf-8")).get("version")
        except (OSError, ValueError, AttributeError):
            return None
        return version if isinstance(version, str) else None

    async def announce(self, version: str) -> None:
        return None  # the build wrote the manifest


class RedisAnnouncer:
    def __init__(self, redis: Redis, corpus: str) -> None:
        self._redis = redis
        self.key = f"{PREFIX}{corpus}:version"

    async def latest(self) -> str | None:
        value = await self._redis.get(self.key)
        return value.decode() if isinstance(value, bytes) else value

    async def announce(self, version: str) -> None:
        await self._redis.set(self.key, version)


def coordination(
    docs_dir: Path, index_dir: Path, redis: Redis | None
) -> tuple[BuildLock, list[Announcer]]:
    manifest = ManifestAnnouncer(index_dir)
    if redis is None:
        return FileLock(index_dir), [manifest]
    corpus = corpus_id(docs_dir, index_dir)
    return RedisLock(redis, corpus), [manifest, RedisAnnouncer(redis, corpus)]


async def announce_once(url: str, docs_dir: Path, index_dir: Path, version: str) -> None:
    """Tell every bot process sharing this Redis that ``version`` is built (``rag index``)."""
    redis = Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
    try:
        await RedisAnnouncer(redis, corpus_id(docs_dir, index_dir)).announce(version)
    finally:
        await redis.aclose()
