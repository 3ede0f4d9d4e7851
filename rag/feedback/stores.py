"""Which vote store a process uses (the bot, ``rag report``): the same choice everywhere."""

from __future__ import annotations

from pathlib import Path

from redis.asyncio import Redis

from rag.feedback.files import FileVotes
from rag.feedback.votes import MemoryVotes, RedisVotes, VoteStore
from rag.storage.redis_guard import GuardedRedis


def vote_store(
    redis: Redis | GuardedRedis | None, *, retention_days: int, index_dir: Path | None = None
) -> VoteStore:
    """Redis when there is one (shared by every process); else the file under ``index_dir``
    (every process on this host); else this process's memory (tests, tools)."""
    if redis is not None:
        return RedisVotes(redis, retention_days=retention_days)
    if index_dir is not None:
        return FileVotes(index_dir, retention_days=retention_days)
    return MemoryVotes(retention_days=retention_days)
