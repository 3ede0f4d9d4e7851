"""``GET /healthz``: is this bot able to answer, and from what?

Index size and version (and, for a bot that follows DOCS_DIR, the index's age, documents,
whether it answers lexically while dense vectors are computed and how far that is, the last
refresh and its outcome with any skipped files), the scopes file's version, each synced wiki's
last sync (when, what changed, what failed and why), who the bot is in Slack (team, bot user),
whether Redis answers (the bot still works
without it, degraded to one process), where the vectors live (``VECTOR_STORE=qdrant``: the
collection and whether it answers; while it does not, answers are lexical and the status is
``degraded``), the chat model mode. Nothing secret and no document
text: the model *mode* (``extractive`` or ``openai-compatible:<model>``) but never the base URL
or key.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from aiohttp import web
from redis.asyncio import Redis
from redis.exceptions import RedisError

from bot.ports import SourceIndex

PING_TIMEOUT_SECONDS = 1.0
STARTED = time.monotonic()


async def redis_state(redis: Redis | None) -> str:
    if redis is None:
        return "not configured"
    try:
        async with asyncio.timeout(PING_TIMEOUT_SECONDS):
            await redis.ping()
    except (RedisError, OSError, TimeoutError):
        return "unreachable"
    return "ok"


def health_handler(
    *,
    index: SourceIndex,
    redis: Redis | None,
    chat_model: str,
    mode: str,
    scopes_version: str | None = None,
    details: Callable[[], dict[str, Any]] | None = None,
    sources: Callable[[], list[dict[str, Any]]] | None = None,
    identities: Mapping[str, object] | None = None,
) -> Callable[[web.Request], Awaitable[web.Response]]:
    """``scopes_version``: the running SCOPES_FILE's version (``None``: no file, all see all);
    ``details``: what the served index says about itself (mode, backfill, last refresh);
    ``sources``: each SOURCES_FILE source's last sync and its errors (``None``: no sync);
    ``identities``: who the bot is on each platform it serves (``"slack"``: team and bot user
    from ``auth.test``), as filled at startup."""
    scopes = "not configured" if scopes_version is None else {"version": scopes_version}

    async def healthz(request: web.Request) -> web.Response:
        redis_now = await redis_state(redis)
        described = details() if details is not None else {}
        # A vector store that is down leaves lexical answers only: degraded, like Redis.
        store_down = described.get("vector_store", {}).get("state") == "unreachable"
        return web.json_response(
            {
                "status": "degraded" if redis_now == "unreachable" or store_down else "ok",
                "mode": mode,
                "index": {"chunks": len(index), "version": index.version, **described},
                "redis": redis_now,
                "chat_model": chat_model,
                "scopes": scopes,
                "sources": "not configured" if sources is None else sources(),
                "uptime_seconds": round(time.monotonic() - STARTED),
                **(identities or {}),
            }
        )

    return healthz
