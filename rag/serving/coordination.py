"""How bot processes sharing one corpus agree on who builds and learn what was built.

- A **build lock**, so a changed corpus is embedded once: in Redis (``SET NX PX``, renewed while
  the build runs, so a builder that dies frees it within :data:`LOCK_SECONDS`) when REDIS_URL is
  set, else an ``flock`` on ``INDEX_DIR/.build.lock`` (processes on one machine). While Redis is
  unreachable the file lock stands in: each machine then builds for itself.
- **Where a new version is announced**: always the manifest in INDEX_DIR (which every build,
  also ``python -m rag index``, writes last); with Redis also a key every process polls, so
  processes on other machines hear of it too.

Who shares: every process on one Redis database under one REDIS_KEY_PREFIX. That is the
deployment's place in Redis (answer cache, reviews, question records and the weekly digest are
shared through it), and it is what machines of one deployment have in common: their folders may
sit at different paths, so a corpus named by its paths (as before) was never shared across them
— while two deployments with the same container paths on one database collided. Two deployments
on one Redis server use two databases (``redis://host:6379/0``, ``/1``) or two key prefixes.
The vectors shared through Redis (:mod:`rag.serving.shared_vectors`) are keyed by passage
content and embedder, so whatever is shared is right by construction.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import secrets
from pathlib import Path
from typing import IO, Protocol

from rag.search.manifest import MANIFEST_FILE, manifest_version
from rag.storage.redis_guard import GuardedRedis, RedisUnavailable

logger = logging.getLogger(__name__)

LOCK_SECONDS = 30.0
INDEX_KEYS = "index:"
"""After REDIS_KEY_PREFIX, every key of the deployment's index (lock, version, shared vectors)."""
COMMAND_SECONDS = 2.0
"""Bound of one lock or version command: background work, so roomier than the answer cache's."""


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
    """One builder across machines; while Redis is unreachable, ``fallback`` (this machine's
    file lock) decides, so a bot keeps following its documents through an outage."""

    _RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end"
    _RENEW = (
        "if redis.call('get', KEYS[1]) == ARGV[1] then "
        "return redis.call('pexpire', KEYS[1], ARGV[2]) end"
    )

    def __init__(
        self, redis: GuardedRedis, fallback: BuildLock, *, seconds: float = LOCK_SECONDS
    ) -> None:
        self._redis = redis
        self._fallback = fallback
        self.key = f"{redis.key_prefix}{INDEX_KEYS}build-lock"
        self._ms = int(seconds * 1000)
        self._token = ""
        self._local = False
        self._renewing: asyncio.Task[None] | None = None

    async def acquire(self) -> bool:
        token = secrets.token_hex(8)
        client = self._redis.client
        try:
            taken = await self._redis.run(
                lambda: client.set(self.key, token, nx=True, px=self._ms),
                timeout_seconds=COMMAND_SECONDS,
            )
        except RedisUnavailable:
            self._local = await self._fallback.acquire()
            return self._local
        if not taken:
            return False
        self._token = token
        self._renewing = asyncio.create_task(self._renew())
        return True

    async def _renew(self) -> None:
        client = self._redis.client
        while True:
            await asyncio.sleep(self._ms / 3000)
            with contextlib.suppress(RedisUnavailable):
                await self._redis.run(
                    lambda: client.eval(self._RENEW, 1, self.key, self._token, self._ms),
                    timeout_seconds=COMMAND_SECONDS,
                )

    async def release(self) -> None:
        if self._local:
            self._local = False
            await self._fallback.release()
        if self._renewing is not None:
            self._renewing.cancel()
            self._renewing = None
        if self._token:
            token, self._token = self._token, ""
            client = self._redis.client
            with contextlib.suppress(RedisUnavailable):  # unreleased, it expires by itself
                await self._redis.run(
                    lambda: client.eval(self._RELEASE, 1, self.key, token),
                    timeout_seconds=COMMAND_SECONDS,
                )


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
        return manifest_version(self.path.parent)

    async def announce(self, version: str) -> None:
        return None  # the build wrote the manifest


class RedisAnnouncer:
    def __init__(self, redis: GuardedRedis) -> None:
        self._redis = redis
        self.key = f"{redis.key_prefix}{INDEX_KEYS}version"

    async def latest(self) -> str | None:
        """``None`` while Redis is unreachable: the manifest and the scan still work."""
        client = self._redis.client
        try:
            value = await self._redis.run(
                lambda: client.get(self.key), timeout_seconds=COMMAND_SECONDS
            )
        except RedisUnavailable:
            return None
        return value.decode() if isinstance(value, bytes) else value

    async def announce(self, version: str) -> None:
        """Raises :class:`RedisUnavailable` when Redis could not be told."""
        client = self._redis.client
        await self._redis.run(
            lambda: client.set(self.key, version), timeout_seconds=COMMAND_SECONDS
        )


def coordination(index_dir: Path, redis: GuardedRedis | None) -> tuple[BuildLock, list[Announcer]]:
    manifest = ManifestAnnouncer(index_dir)
    if redis is None:
        return FileLock(index_dir), [manifest]
    return RedisLock(redis, FileLock(index_dir)), [manifest, RedisAnnouncer(redis)]
