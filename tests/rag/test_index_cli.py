"""``python -m rag index`` with REDIS_URL: on a second machine it reads what the first embedded."""

from __future__ import annotations

import argparse
import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from rag.cli import index as index_cli
from rag.ingest.coordination import PREFIX
from rag.search.embeddings import HashingEmbeddings
from rag.settings import Settings

DOCS = Path(__file__).resolve().parents[2] / "docs"


class Counting(HashingEmbeddings):
    def __init__(self) -> None:
        super().__init__()
        self.embedded = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += len(texts)
        return super().embed_documents(texts)


def clear(url: str) -> None:
    async def run() -> None:
        client = Redis.from_url(url)
        keys = [key async for key in client.scan_iter(f"{PREFIX}*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()

    asyncio.run(run())


@pytest.fixture
def index_keys_cleared(redis_url: str) -> Iterator[str]:
    clear(redis_url)
    yield redis_url
    clear(redis_url)


def rag_index(machine: Path, redis_url: str, embedder: Counting) -> int:
    settings = Settings.from_env(
        {
            "DOCS_DIR": str(machine / "docs"),
            "INDEX_DIR": str(machine / "index"),
            "REDIS_URL": redis_url,
        }
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(index_cli, "embeddings_from_settings", lambda _: embedder)
        return index_cli.run(argparse.Namespace(docs=None), settings)


def test_the_second_machine_reads_every_vector_and_says_so(
    tmp_path: Path, index_keys_cleared: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("a", "b"):
        shutil.copytree(DOCS, tmp_path / name / "docs")
    first, second = Counting(), Counting()

    assert rag_index(tmp_path / "a", index_keys_cleared, first) == 0
    assert rag_index(tmp_path / "b", index_keys_cleared, second) == 0

    assert first.embedded > 0
    assert second.embedded == 0
    summaries = capsys.readouterr().out.split("documents: ")
    assert f"(0 embedded, 0 reused, {first.embedded} read from Redis)" in summaries[-1]


def test_with_redis_down_the_index_is_built_and_the_command_says_bots_were_not_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(DOCS, tmp_path / "a" / "docs")
    embedder = Counting()

    assert rag_index(tmp_path / "a", "redis://127.0.0.1:1/0", embedder) == 0

    assert embedder.embedded > 0
    assert (tmp_path / "a" / "index" / "manifest.json").exists()
    assert "running bots were not told through Redis" in capsys.readouterr().err
