"""``python -m rag cache stats|clear``: what the shared answer cache holds, and forgetting it.

Operators look here when answers seem stale (clear) or to see whether the cache pays off
(stats: hits, misses, keys, memory). Only the Redis cache is visible from outside a process;
with REDIS_URL unset each bot process keeps its own in-memory cache, and this says so.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from rag.cache.answers import CacheStats, CacheUnavailable
from rag.cache.redis_backend import KEYS, RedisCache
from rag.settings import Settings, secret
from rag.storage.redis_guard import GuardedRedis

IN_PROCESS = (
    "in-process cache: nothing persistent to {what} (REDIS_URL is unset; each process keeps "
    "its own cache, emptied when it stops)"
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("cache", help="show or clear the shared answer cache")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    stats = actions.add_parser("stats", help="hits, misses, keys and memory of the Redis cache")
    stats.add_argument("--json", action="store_true", help="print one JSON object for scripts")
    actions.add_parser("clear", help="delete every cached answer (only the cache's own keys)")
    for action in (stats, actions.choices["clear"]):
        action.add_argument(
            "--prefix",
            help=f"Redis key prefix of the cache (default: REDIS_KEY_PREFIX + {KEYS})",
        )
    parser.set_defaults(func=run)


def _size(count: int | None) -> str:
    if count is None:
        return "-"
    size = float(count)
    for unit in ("B", "KiB", "MiB"):
        if size < 1024:
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def as_text(stats: CacheStats, where: str) -> str:
    rate = "-" if stats.hit_rate is None else f"{stats.hit_rate:.1%}"
    rows = [
        ("hits", str(stats.hits)),
        ("misses", str(stats.misses)),
        ("shared", f"{stats.shared}  (waited for an identical question's answer)"),
        ("hit rate", rate),
        ("keys", str(stats.keys)),
        ("memory", _size(stats.memory_bytes)),
    ]
    return "\n".join([f"answer cache: {where}", *(f"  {name:<9}{value}" for name, value in rows)])


async def _stats(cache: RedisCache, as_json: bool) -> str:
    stats = await cache.stats()
    if as_json:
        data = {
            "backend": stats.backend,
            "hits": stats.hits,
            "misses": stats.misses,
            "shared": stats.shared,
            "hit_rate": stats.hit_rate,
            "keys": stats.keys,
            "memory_bytes": stats.memory_bytes,
        }
        return json.dumps(data)
    return as_text(stats, f"Redis at {cache.location}, prefix {cache.prefix}")


async def _clear(cache: RedisCache) -> str:
    removed = await cache.clear()
    noun = "answer" if removed == 1 else "answers"
    return f"removed {removed} cached {noun} from Redis at {cache.location} (prefix {cache.prefix})"


async def _run(args: argparse.Namespace, url: str, key_prefix: str) -> str:
    # An operator waits a little longer than a question's lookup would.
    redis = GuardedRedis.from_url(
        url, key_prefix=key_prefix, connect_timeout_seconds=1.0, socket_timeout_seconds=5.0
    )
    cache = RedisCache(redis, prefix=args.prefix)
    try:
        if args.action == "stats":
            return await _stats(cache, args.json)
        return await _clear(cache)
    finally:
        await redis.aclose()


def run(args: argparse.Namespace, settings: Settings) -> int:
    url = secret(settings.redis_url)
    if url is None:
        print(IN_PROCESS.format(what="show" if args.action == "stats" else "clear"))
        return 0
    try:
        print(asyncio.run(_run(args, url, settings.redis_key_prefix)))
    except CacheUnavailable as error:
        print(f"citebot: {error}", file=sys.stderr)
        print("citebot: check REDIS_URL and that Redis is running", file=sys.stderr)
        return 1
    return 0
