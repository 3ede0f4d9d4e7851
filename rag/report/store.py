"""Where question and review records live, for at most RETENTION_DAYS.

- :class:`RedisRecords` (REDIS_URL set): one sorted set per kind, scored by time, shared by
  every bot process; each write also drops what is older than the retention and sets the key
  to expire, so nothing outlives RETENTION_DAYS even if the bot stops writing.
- :class:`FileRecords` (no Redis): JSON lines under ``INDEX_DIR/records/``, appended under a
  file lock (several processes may share INDEX_DIR), pruned to the retention at most hourly.

Reading skips a record it cannot parse (a damaged line, a future format) rather than failing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar

from pydantic import BaseModel, ValidationError
from redis.asyncio import Redis

from rag.report.records import QuestionRecord, ReviewRecord
from rag.storage.redis_guard import GuardedRedis
from rag.storage.retained import DAY_SECONDS, RecordsFolder

logger = logging.getLogger(__name__)

KEYS = "records:"
"""The records' part of the deployment's keys, after REDIS_KEY_PREFIX (rag.storage.keys)."""

R = TypeVar("R", bound=BaseModel)


class RecordStore(Protocol):
    where: str
    """Where the records are, for the report's heading."""

    async def add_question(self, record: QuestionRecord) -> None: ...

    async def add_review(self, record: ReviewRecord) -> None: ...

    async def questions(self, since: float) -> list[QuestionRecord]: ...

    async def reviews(self, since: float) -> list[ReviewRecord]: ...


def _parse(model: type[R], raw: str | bytes) -> R | None:
    try:
        return model.model_validate_json(raw)
    except ValidationError:
        return None


READ_SECONDS = 5.0
"""A period's records are one sorted-set read that can hold many thousands of members: longer
than the one-key commands of answering, still bounded."""


class RedisRecords:
    """Through the guarded client (one failure policy, one warning per outage): a call raises
    :class:`~rag.storage.redis_guard.RedisUnavailable` when Redis is away, nothing else."""

    def __init__(
        self,
        redis: Redis | GuardedRedis,
        *,
        retention_days: int,
        prefix: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if retention_days < 1:
            msg = f"retention_days ({retention_days}) must be at least 1"
            raise ValueError(msg)
        self._redis = redis if isinstance(redis, GuardedRedis) else GuardedRedis(redis)
        self._retention = retention_days * DAY_SECONDS
        self._prefix = f"{self._redis.key_prefix}{KEYS}" if prefix is None else prefix
        self._clock = clock
        self.where = f"Redis ({self._prefix}*)"

    async def _add(self, kind: str, record: BaseModel) -> None:
        key = f"{self._prefix}{kind}"
        now = self._clock()
        # A random suffix keeps two identical records (same second, same hash) both counted.
        member = f"{record.model_dump_json()}\t{secrets.token_hex(4)}"
        client = self._redis.client

        async def write() -> None:
            async with client.pipeline(transaction=True) as pipe:
                pipe.zadd(key, {member: float(record.model_dump()["at"])})
                pipe.zremrangebyscore(key, "-inf", now - self._retention)
                pipe.expire(key, self._retention)
                await pipe.execute()

        await self._redis.run(write)

    async def _read(self, kind: str, model: type[R], since: float) -> list[R]:
        cutoff = max(since, self._clock() - self._retention)
        client, key = self._redis.client, f"{self._prefix}{kind}"
        raw = await self._redis.run(
            lambda: client.zrangebyscore(key, cutoff, "+inf"), timeout_seconds=READ_SECONDS
        )
        parsed = (_parse(model, _json_of(member)) for member in raw)
        return [record for record in parsed if record is not None]

    async def add_question(self, record: QuestionRecord) -> None:
        await self._add("questions", record)

    async def add_review(self, record: ReviewRecord) -> None:
        await self._add("reviews", record)

    async def questions(self, since: float) -> list[QuestionRecord]:
        return await self._read("questions", QuestionRecord, since)

    async def reviews(self, since: float) -> list[ReviewRecord]:
        return await self._read("reviews", ReviewRecord, since)


class FileRecords:
    def __init__(
        self, index_dir: Path, *, retention_days: int, clock: Callable[[], float] = time.time
    ) -> None:
        self._folder = RecordsFolder(
            index_dir, retention_days=retention_days, lock_name=".lock", clock=clock
        )
        self.directory = self._folder.directory
        self.where = str(self.directory)

    def _append(self, kind: str, record: BaseModel) -> None:
        path = self.directory / f"{kind}.jsonl"
        with self._folder.locked():
            with path.open("a", encoding="utf-8") as file:
                file.write(record.model_dump_json() + "\n")
            if self._folder.prune_due(path):
                self._prune(path, self._folder.cutoff())

    def _prune(self, path: Path, cutoff: float) -> None:
        lines = path.read_text(encoding="utf-8").splitlines()
        kept = [line for line in lines if _at(line) >= cutoff]
        if len(kept) < len(lines):
            self._folder.rewrite(path, kept)

    def _read(self, kind: str, model: type[R], since: float) -> list[R]:
        path = self.directory / f"{kind}.jsonl"
        if not path.exists():
            return []
        cutoff = max(since, self._folder.cutoff())
        parsed = (_parse(model, line) for line in path.read_text(encoding="utf-8").splitlines())
        return [r for r in parsed if r is not None and float(r.model_dump()["at"]) >= cutoff]

    async def add_question(self, record: QuestionRecord) -> None:
        await asyncio.to_thread(self._append, "questions", record)

    async def add_review(self, record: ReviewRecord) -> None:
        await asyncio.to_thread(self._append, "reviews", record)

    async def questions(self, since: float) -> list[QuestionRecord]:
        return await asyncio.to_thread(self._read, "questions", QuestionRecord, since)

    async def reviews(self, since: float) -> list[ReviewRecord]:
        return await asyncio.to_thread(self._read, "reviews", ReviewRecord, since)


def _json_of(member: object) -> str:
    text = member.decode("utf-8") if isinstance(member, bytes) else str(member)
    return text.rsplit("\t", 1)[0]


def _at(line: str) -> float:
    try:
        return float(json.loads(line)["at"])
    except (ValueError, KeyError, TypeError):
        return float("-inf")  # unreadable: pruned with the old ones


def record_store(
    index_dir: Path, redis: Redis | GuardedRedis | None, *, retention_days: int
) -> RecordStore:
    """Redis when there is one (shared by every process), else the file under INDEX_DIR."""
    if redis is not None:
        return RedisRecords(redis, retention_days=retention_days)
    return FileRecords(index_dir, retention_days=retention_days)
