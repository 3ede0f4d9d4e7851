"""``python -m rag cache stats|clear`` against a real Redis, and without one."""

from __future__ import annotations

import argparse
import asyncio
import json

import pytest

from rag.cache.redis_backend import RedisCache
from rag.cli import cache as cache_cli
from rag.settings import Settings
from tests.fakes.redis_server import free_port
from tests.rag.cache_fakes import CountingCompute, unverified
from tests.redis_area import RedisArea


def run(argv: list[str], settings: Settings) -> int:
    parser = argparse.ArgumentParser()
    cache_cli.add_parser(parser.add_subparsers())
    args = parser.parse_args(["cache", *argv])
    return cache_cli.run(args, settings)


async def _ask(area: RedisArea, keys: list[str]) -> None:
    """Questions through a deployment's cache whose REDIS_KEY_PREFIX is the area's."""
    cache = RedisCache.from_url(area.url, key_prefix=area.prefix)
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
    redis_area: RedisArea, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_ask(redis_area, ["v1:a", "v1:a", "v1:b"]))
    settings = Settings(**redis_area.settings)
    assert run(["stats", "--json"], settings) == 0
    stats = json.loads(capsys.readouterr().out)
    assert (stats["hits"], stats["misses"], stats["keys"]) == (1, 3, 2)
    assert stats["memory_bytes"] > 0
    assert run(["stats"], settings) == 0
    text = capsys.readouterr().out
    assert f"prefix {redis_area.prefix}answer:" in text
    assert "hits     1" in text
    assert "keys     2" in text


def test_clear_removes_only_its_own_deployments_answers(
    redis_area: RedisArea, capsys: pytest.CaptureFixture[str]
) -> None:
    other = RedisArea(redis_area.url, f"{redis_area.prefix}other:")
    asyncio.run(_ask(redis_area, ["v1:a", "v1:b", "v1:c"]))
    asyncio.run(_ask(other, ["v1:a"]))
    assert run(["clear"], Settings(**redis_area.settings)) == 0
    assert "removed 3 cached answers" in capsys.readouterr().out
    assert run(["stats", "--json"], Settings(**redis_area.settings)) == 0
    assert json.loads(capsys.readouterr().out)["keys"] == 0
    assert run(["stats", "--json"], Settings(**other.settings)) == 0
    assert json.loads(capsys.readouterr().out)["keys"] == 1  # the other REDIS_KEY_PREFIX's


def test_prefix_option_names_a_cache_apart_from_the_settings(
    redis_area: RedisArea, capsys: pytest.CaptureFixture[str]
) -> None:
    asyncio.run(_ask(redis_area, ["v1:a"]))
    elsewhere = ["stats", "--json", "--prefix", f"{redis_area.prefix}elsewhere:"]
    assert run(elsewhere, Settings(**redis_area.settings)) == 0
    assert json.loads(capsys.readouterr().out)["keys"] == 0
    mine = ["stats", "--json", "--prefix", f"{redis_area.prefix}answer:"]
    assert run(mine, Settings(redis_url=redis_area.url)) == 0
    assert json.loads(capsys.readouterr().out)["keys"] == 1


def test_unreachable_redis_is_one_sentence_not_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = Settings(redis_url=f"redis://127.0.0.1:{free_port()}/0")
    assert run(["stats"], settings) == 1
    err = capsys.readouterr().err
    assert err.startswith("citebot: Redis at 127.0.0.1:")
    assert "check REDIS_URL" in err
    assert "Traceback" not in err
