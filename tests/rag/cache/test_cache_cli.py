"""``python -m rag cache stats|clear`` against a real Redis, and without one."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Iterator
from uuid import uuid4

import pytest

from rag.cache.redis_backend import RedisCache
from rag.cli import cache as cache_cli
from rag.settings import Settings
from tests.fakes.redis_server import free_port
from tests.rag.cache_fakes import CountingCompute, unverified


def run(argv: list[str], settings: Settings) -> int:
    parser = argparse.ArgumentParser()
    cache_cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(["cache", *argv])
    return cache_cli.run(args, settings)


@pytest.fixture
def prefix(redis_url: str) -> Iterator[str]:
    name = f"citebot-test:{uuid4().hex}:"
    yield name
    asyncio.run(_clear(redis_url, name))


async def _clear(url: str, prefix: str) -> None:
    cache = RedisCache.from_url(url, prefix=prefix)
    await cache.clear()
    await cache.aclose()


async def _ask(url: str, prefix: str, keys: list[str]) -> None:
    cache = RedisCache.from_url(url, prefix=prefix)
    for key in keys:
        await cache.get_or_compute(key, CountingCompute())
    await cache.get_or_compute("v1:unverified", CountingCompute(unverified()))
    await cache.aclose()


def test_without_redis_url_it_says_there_is_nothing_persistent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["stats"], Settings()) == 0
    assert run(["clear"], Settings()) == 0
    out = capsys.readouterr().out
    assert "in-process cache: nothing persistent to show" in out
    assert "nothing persistent to clear" in out


def test_stats_shows_hits_misses_keys_and_memory(
    redis_url: str, prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_ask(redis_url, prefix, ["v1:a", "v1:a", "v1:b"]))
    assert run(["stats", "--prefix", prefix, "--json"], Settings(redis_url=redis_url)) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["hits"], stats["misses"], stats["keys"]) == (1, 3, 2)
    assert stats["memory_bytes"] > 0
    assert run(["stats", "--prefix", prefix], Settings(redis_url=redis_url)) == 0
    text = capsys.readouterr().out
    assert "hits     1" in text
    assert "keys     2" in text


def test_clear_says_how_many_answers_it_removed(
    redis_url: str, prefix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_ask(redis_url, prefix, ["v1:a", "v1:b", "v1:c"]))
    assert run(["clear", "--prefix", prefix], Settings(redis_url=redis_url)) == 0
    assert "removed 3 cached answers" in capsys.readouterr().out
    assert run(["stats", "--prefix", prefix, "--json"], Settings(redis_url=redis_url)) == 0
    assert json.loads(capsys.readouterr().out)["keys"] == 0


def test_unreachable_redis_is_one_sentence_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = Settings(redis_url=f"redis://127.0.0.1:{free_port()}/0")
    assert run(["stats"], settings) == 1
    err = capsys.readouterr().err
    assert err.startswith("citebot: Redis at 127.0.0.1:")
    assert "check REDIS_URL" in err
    assert "Traceback" not in err
