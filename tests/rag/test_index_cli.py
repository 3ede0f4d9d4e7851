"""``python -m rag index``: with REDIS_URL, on a second machine it reads what the first embedded;
with Redis down it says so in one line; it waits for a running bot's build and frees the lock."""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest
from redis.asyncio import Redis

from rag.cli import index as index_cli
from rag.search.build import load_or_build
from rag.search.embeddings import HashingEmbeddings
from rag.serving.coordination import INDEX_KEYS, BuildLock, FileLock, coordination
from rag.settings import Settings
from rag.storage.redis_guard import GuardedRedis
from tests.redis_area import RedisArea

T = TypeVar("T")
DOCS = Path(__file__).resolve().parents[2] / "docs"
PROGRESS = re.compile(r"(reading|splitting|counting terms|embedding): [\d,]+ of ")


class Counting(HashingEmbeddings):
    def __init__(self) -> None:
        super().__init__()
        self.embedded = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += len(texts)
        return super().embed_documents(texts)


def lock_key(area: RedisArea) -> str:
    return f"{area.prefix}{INDEX_KEYS}build-lock"


def settings_of(machine: Path, redis: RedisArea | str | None) -> Settings:
    """``redis``: the test's place in Redis (REDIS_URL and REDIS_KEY_PREFIX), or a URL alone."""
    env = {"DOCS_DIR": str(machine / "docs"), "INDEX_DIR": str(machine / "index")}
    if isinstance(redis, RedisArea):
        env |= redis.env
    elif redis is not None:
        env["REDIS_URL"] = redis
    return Settings.from_env(env)


def rag_index(machine: Path, redis: RedisArea | str | None, embedder: Counting) -> int:
    settings = settings_of(machine, redis)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(index_cli, "embeddings_from_settings", lambda _: embedder)
        return index_cli.run(argparse.Namespace(docs=None), settings)


def test_the_second_machine_reads_every_vector_and_says_so(
    tmp_path: Path, redis_area: RedisArea, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("a", "b"):
        shutil.copytree(DOCS, tmp_path / name / "docs")
    first, second = Counting(), Counting()

    assert rag_index(tmp_path / "a", redis_area, first) == 0
    assert rag_index(tmp_path / "b", redis_area, second) == 0

    assert first.embedded > 0
    assert second.embedded == 0
    summaries = capsys.readouterr().out.split("documents: ")
    assert f"(0 embedded, 0 reused, {first.embedded} read from Redis)" in summaries[-1]


def test_with_redis_down_the_index_is_built_and_one_line_says_what_that_means(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(DOCS, tmp_path / "a" / "docs")
    embedder = Counting()

    assert rag_index(tmp_path / "a", "redis://127.0.0.1:1/0", embedder) == 0

    assert embedder.embedded > 0
    assert (tmp_path / "a" / "index" / "manifest.json").exists()
    err = capsys.readouterr().err
    # the progress line redraws itself with carriage returns; every other piece is a message
    lines = [line for line in re.split(r"[\r\n]", err) if line.strip()]
    messages = [line for line in lines if not PROGRESS.match(line)]
    assert len(messages) == 1, err
    assert messages[0].startswith("citebot: Redis at 127.0.0.1:1/0 is unreachable (ConnectionError")
    assert messages[0].endswith("bots on other machines are not told")


class Watching:
    """The command's build lock, reporting when it found the lock taken."""

    def __init__(self, lock: BuildLock, refused: threading.Event) -> None:
        self.lock = lock
        self.refused = refused

    async def acquire(self) -> bool:
        taken = await self.lock.acquire()
        if not taken:
            self.refused.set()
        return taken

    async def release(self) -> None:
        await self.lock.release()


def on_redis(url: str, command: Callable[[Redis], Awaitable[T]]) -> T:
    async def run() -> T:
        client = Redis.from_url(url)
        reply = await command(client)
        await client.aclose()
        return reply

    return asyncio.run(run())


@pytest.mark.parametrize("with_redis", [True, False], ids=["redis lock", "file lock"])
def test_the_command_waits_for_a_running_bots_build_then_reuses_its_vectors(
    tmp_path: Path,
    redis_area: RedisArea,
    with_redis: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shutil.copytree(DOCS, tmp_path / "a" / "docs")
    redis = redis_area if with_redis else None
    bots = FileLock(tmp_path / "a" / "index")  # a bot on this machine, building
    if with_redis:
        on_redis(redis_area.url, lambda r: r.set(lock_key(redis_area), "a-bot", px=30_000))
    else:
        assert asyncio.run(bots.acquire())
    refused = threading.Event()

    def watching(index_dir: Path, redis: GuardedRedis | None) -> tuple[BuildLock, object]:
        lock, announcers = coordination(index_dir, redis)
        return Watching(lock, refused), announcers

    monkeypatch.setattr(index_cli, "coordination", watching)
    monkeypatch.setattr(index_cli, "LOCK_POLL_SECONDS", 0.01)
    embedder, bots_embedder, result = Counting(), Counting(), []
    command = threading.Thread(
        target=lambda: result.append(rag_index(tmp_path / "a", redis, embedder))
    )
    command.start()
    try:
        assert refused.wait(10)
        assert embedder.embedded == 0
        load_or_build(tmp_path / "a" / "docs", tmp_path / "a" / "index", embeddings=bots_embedder)
    finally:  # the bot's build is done
        if with_redis:
            on_redis(redis_area.url, lambda r: r.delete(lock_key(redis_area)))
        else:
            asyncio.run(bots.release())
    command.join(30)

    assert result == [0]
    assert bots_embedder.embedded > 0
    assert embedder.embedded == 0, "the change was embedded twice"
    assert "citebot: waiting for a running bot's build to finish…" in capsys.readouterr().err
    assert asyncio.run(bots.acquire()), "the command left the lock held"
    asyncio.run(bots.release())
    assert on_redis(redis_area.url, lambda r: r.exists(lock_key(redis_area))) == 0


def test_an_interrupted_command_frees_the_build_lock(
    tmp_path: Path, redis_area: RedisArea, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C cancels the command's task (``asyncio.run``); the bots must not then wait for
    the lock to expire, nor for the batch being embedded (it stays stuck until the end)."""
    shutil.copytree(DOCS, tmp_path / "a" / "docs")
    embedding, go = threading.Event(), threading.Event()

    class Blocking(Counting):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            embedding.set()
            go.wait(10)
            return super().embed_documents(texts)

    embedder = Blocking()
    monkeypatch.setattr(index_cli, "embeddings_from_settings", lambda _: embedder)
    settings = settings_of(tmp_path / "a", redis_area)

    async def interrupted() -> tuple[int, int]:
        command = asyncio.create_task(index_cli._build(settings, redis_area.url))
        assert await asyncio.to_thread(embedding.wait, 10)
        client = redis_area.client()
        during = await client.exists(lock_key(redis_area))
        command.cancel()
        with pytest.raises(asyncio.CancelledError):
            await command
        after = await client.exists(lock_key(redis_area))
        await client.aclose()
        return during, after

    try:
        assert asyncio.run(interrupted()) == (1, 0)
    finally:
        go.set()
