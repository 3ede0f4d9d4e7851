"""The tests' own Redis, and each test's own place in it.

Tests write to a Redis they started (a redis-server on a free port, stopped at the end) or to
the one TEST_REDIS_URL names (CI may point it at a shared Redis): never to one they merely
found answering, never to REDIS_URL (tests/conftest.py removes it from the environment). Every
key is under the session's prefix (``citebot-test-<random>:``), each test's under one of its
own below it (:class:`RedisArea`, deleted when the test ends, by SCAN and UNLINK: nothing is
ever flushed), so that on a shared Redis nothing of ours is left and nothing of anyone else's
is touched. On the session's own server every key must be under its prefix at the end, so a
test or a bot that wrote outside it fails the run here instead of littering a shared Redis.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import redis as sync_redis
from redis.asyncio import Redis

from rag.storage.redis_guard import GuardedRedis
from tests.fakes.redis_server import OwnRedis

TEST_REDIS_URL = "TEST_REDIS_URL"
SESSION_PREFIX = f"citebot-test-{secrets.token_hex(4)}:"
"""Every key this session writes starts so (a ``pytest`` run of its own has another)."""


def glob_escape(text: str) -> str:
    return "".join(f"\\{char}" if char in "*?[]\\" else char for char in text)


def keys_under(url: str, prefix: str) -> list[bytes]:
    with sync_redis.Redis.from_url(url) as client:
        return list(client.scan_iter(match=glob_escape(prefix) + "*", count=1000))


def delete_under(url: str, prefix: str) -> None:
    """Deletes every key under ``prefix`` (SCAN + UNLINK, never FLUSHDB)."""
    keys = keys_under(url, prefix)
    with sync_redis.Redis.from_url(url) as client:
        for start in range(0, len(keys), 500):
            client.unlink(*keys[start : start + 500])


def suite_redis(env: dict[str, str]) -> Iterator[str]:
    """TEST_REDIS_URL when set (its keys under the session prefix deleted at the end), else a
    redis-server of the session's own (checked to hold only such keys, then stopped)."""
    given = env.get(TEST_REDIS_URL, "").strip()
    if given:
        try:
            sync_redis.Redis.from_url(given, socket_connect_timeout=2).ping()
        except sync_redis.RedisError as error:
            pytest.fail(f"{TEST_REDIS_URL}={given} does not answer: {error}", pytrace=False)
        try:
            yield given
        finally:
            delete_under(given, SESSION_PREFIX)
        return
    server = OwnRedis()
    server.start()
    try:
        yield server.url
        strays = [key for key in keys_under(server.url, "") if not _ours(key)]
        if strays:
            shown = ", ".join(sorted(key.decode(errors="replace") for key in strays)[:10])
            pytest.fail(
                f"{len(strays)} Redis keys written outside {SESSION_PREFIX} (on a shared "
                f"TEST_REDIS_URL they would be left there): {shown}",
                pytrace=False,
            )
    finally:
        server.kill()


def _ours(key: bytes) -> bool:
    return key.startswith(SESSION_PREFIX.encode())


def fresh_prefix() -> str:
    """A key prefix no other test of any session uses, under the session's."""
    return f"{SESSION_PREFIX}{secrets.token_hex(4)}:"


@dataclass(frozen=True)
class RedisArea:
    """One test's place in the suite's Redis: its URL and a key prefix of its own."""

    url: str
    prefix: str

    @property
    def env(self) -> dict[str, str]:
        """What a bot process or the CLI reads to keep to this place."""
        return {"REDIS_URL": self.url, "REDIS_KEY_PREFIX": self.prefix}

    @property
    def settings(self) -> dict[str, str]:
        """The same as ``Settings(**area.settings)`` fields."""
        return {"redis_url": self.url, "redis_key_prefix": self.prefix}

    def client(self) -> Redis:
        return Redis.from_url(self.url)

    def guarded(self, **options: Any) -> GuardedRedis:
        """A guarded client whose stores keep their keys under this test's prefix. Its calls
        may take 5 s (the bot's 0.2 s is for a question): on a loaded machine one slow reply
        would open the breaker, and these tests are not about outages (those use a server
        of their own that they stop)."""
        return GuardedRedis(
            self.client(), key_prefix=self.prefix, **{"timeout_seconds": 5.0, **options}
        )

    def written_keys(self) -> list[bytes]:
        return keys_under(self.url, self.prefix)

    def clear(self) -> None:
        """Empty this test's place, as if Redis had been replaced (never FLUSHDB)."""
        delete_under(self.url, self.prefix)
