"""A running process follows DOCS_DIR: scan, rebuild beside the served index, swap whole."""

from __future__ import annotations

import asyncio
import logging
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from rag.cache.answers import MemoryCache
from rag.generate.extractive import ExtractiveChatModel
from rag.generate.llm import Generator
from rag.pipeline import Pipeline
from rag.search.embedding_run import BATCH
from rag.search.embeddings import CachedEmbeddings, HashingEmbeddings
from rag.serving.background import BackgroundBuilds
from rag.serving.coordination import FileLock, ManifestAnnouncer
from rag.serving.live import LivePipeline
from rag.serving.refresh import (
    Built,
    Refresher,
    fingerprint,
    index_builder,
    lexical_build,
    vectors_missing,
)
from tests.fakes.clock import FakeClock

DOCS = Path(__file__).resolve().parents[3] / "docs"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    shutil.copytree(DOCS, folder)
    return folder


def serving(docs: Path, index_dir: Path, **extra: Any) -> tuple[LivePipeline, Refresher, FakeClock]:
    build = index_builder(docs, index_dir, embeddings=HashingEmbeddings(), min_score=None)
    rebuild = extra.pop("build", build)
    known = fingerprint(docs)
    built = build()
    fixed = extra.pop("min_score", None)
    pipeline = Pipeline(
        index=built.index,
        generator=Generator(ExtractiveChatModel()),
        cache=MemoryCache(),
        min_score=built.index.min_score if fixed is None else fixed,
    )
    live = LivePipeline(pipeline, fixed_min_score=fixed)
    clock = FakeClock(0.0)
    options: dict[str, Any] = {
        "docs_dir": docs,
        "refresh_seconds": 60,
        "lock": FileLock(index_dir),
        "announcers": [ManifestAnnouncer(index_dir)],
        "known": known,
        "clock": clock,
        **extra,
    }
    return live, Refresher(live, rebuild, **options), clock


def sources(live: LivePipeline) -> set[str]:
    return {chunk.source for chunk in live.index.chunks}


async def test_an_edited_file_is_served_after_the_next_scan(docs: Path, tmp_path: Path) -> None:
    live, refresher, clock = serving(docs, tmp_path / "index")
    before = live.index.version
    await refresher.tick()
    assert live.index.version == before  # nothing changed, nothing rebuilt

    courses = docs / "courses.md"
    courses.write_text(courses.read_text(encoding="utf-8").replace("4800", "5200"), "utf-8")
    await refresher.tick()
    assert live.index.version == before  # not yet: the scan runs every REFRESH_SECONDS
    clock.now = 61
    await refresher.tick()

    assert live.index.version != before
    texts = " ".join(c.text for c in live.index.chunks if c.source == "courses.md")
    assert "5200" in texts
    assert "4800" not in texts
    assert live.pipeline.index is live.holder.current  # questions from now on use it
    last = live.holder.state.last_refresh
    assert last is not None
    assert (last.trigger, last.outcome) == ("docs changed", "swapped")


async def test_a_deleted_document_is_never_cited_after_the_scan(docs: Path, tmp_path: Path) -> None:
    live, refresher, clock = serving(docs, tmp_path / "index", refresh_seconds=1)
    (docs / "hr" / "annual-leave.md").unlink()
    clock.now = 2
    await refresher.tick()
    assert "hr/annual-leave.md" not in sources(live)
    hits = await live.pipeline.retrieve("How many days of annual leave do I get?")
    assert all(hit.chunk.source != "hr/annual-leave.md" for hit in hits)
    assert live.index.chunk("hr/annual-leave.md#0") is None  # its citation buttons say "removed"


async def test_a_failed_refresh_keeps_serving_and_says_why_once(
    docs: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def broken() -> Built:
        raise PermissionError("docs/courses.md: permission denied")

    live, refresher, clock = serving(docs, tmp_path / "index", build=broken)
    served = live.index.version
    for n in range(1, 4):
        (docs / f"new-{n}.md").write_text(f"# 新文件 {n}\n内容。", encoding="utf-8")
        clock.now = 61 * n
        await refresher.tick()
    assert live.index.version == served
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "permission denied" in warnings[0].getMessage()
    last = live.holder.state.last_refresh
    assert last is not None
    assert last.outcome == "failed"
    assert "permission denied" in str(last.error)
    assert live.holder.describe()["last_refresh"]["outcome"] == "failed"


async def test_while_another_process_builds_this_one_loads_what_it_announced(
    docs: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    live, refresher, clock = serving(docs, index_dir)
    served = live.index.version
    other = FileLock(index_dir)
    assert await other.acquire()  # another process is building
    (docs / "courses.md").write_text("# 课程\n流利级 5200 元。", encoding="utf-8")
    clock.now = 61
    assert await refresher.scan() is False
    assert live.index.version == served

    index_builder(docs, index_dir, embeddings=HashingEmbeddings(), min_score=None)()  # it builds
    await other.release()
    await refresher.tick()
    assert live.index.version != served
    last = live.holder.state.last_refresh
    assert last is not None
    assert last.trigger == "published"


class Paused:
    """A chat model stand-in that waits until the test lets it answer."""

    model_id = "paused"
    quotes_sources = False

    def __init__(self) -> None:
        self.called = asyncio.Event()
        self.go = asyncio.Event()

    async def generate_reply(self, messages: Any) -> AIMessage:
        self.called.set()
        await self.go.wait()
        return AIMessage("流利级的课程费为 4800 元 [1]。")


async def test_a_question_in_flight_finishes_on_the_index_it_started_with(
    docs: Path, tmp_path: Path
) -> None:
    live, refresher, clock = serving(docs, tmp_path / "index", min_score=-1.0)
    model = Paused()
    live.pipeline.generator = model  # type: ignore[assignment]
    old = live.index.version
    asking = asyncio.create_task(live.answer("流利级多少钱？"))
    await asyncio.wait_for(model.called.wait(), 10)

    (docs / "courses.md").write_text("# 课程\n流利级 5200 元。", encoding="utf-8")
    clock.now = 61
    await refresher.tick()
    assert live.index.version != old
    model.go.set()
    result = await asyncio.wait_for(asking, 10)
    assert any("4800" in hit.chunk.text for hit in result.hits)  # the old index, whole


def test_passages_missing_vectors_are_counted_by_content_not_by_number(
    docs: Path, tmp_path: Path
) -> None:
    """A folder edited while the bot was down has as many cached vectors as passages, but not
    theirs: the bot must start lexically instead of embedding them before it answers."""
    index_dir = tmp_path / "index"
    embeddings = HashingEmbeddings()
    index_builder(docs, index_dir, embeddings=embeddings, min_score=None)()
    for path in sorted(docs.rglob("*.md"))[:3]:
        path.write_text(path.read_text(encoding="utf-8") + "\n\n修订。\n", encoding="utf-8")

    lexical = lexical_build(docs, index_dir, min_score=None)

    assert vectors_missing(index_dir, embeddings, lexical.index) >= 3


async def test_a_bot_shutting_down_stops_its_build_at_the_next_batch_keeping_the_vectors(
    docs: Path, tmp_path: Path
) -> None:
    """A thread cannot be interrupted and Python waits for it at exit: without the stop, a bot
    stopped during a half-hour backfill would hang until it finished."""
    index_dir = tmp_path / "index"
    started, release = threading.Event(), threading.Event()

    class Slow(HashingEmbeddings):
        batches = 0

        def __init__(self) -> None:
            super().__init__()
            self.identity = "slow-test"  # nothing cached yet: every passage is embedded

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            Slow.batches += 1
            started.set()
            release.wait(30)
            return super().embed_documents(texts)

    builds = BackgroundBuilds()
    build = index_builder(
        docs, index_dir, embeddings=Slow(), min_score=None, stopping=builds.stopping
    )
    live, refresher, _ = serving(docs, index_dir, build=build, builds=builds)
    served = live.index.version
    refreshing = asyncio.create_task(refresher.refresh("backfill", exclusive=False))
    assert await asyncio.to_thread(started.wait, 10)

    refreshing.cancel()  # as the app's cleanup cancels the follower
    with pytest.raises(asyncio.CancelledError):
        await refreshing
    release.set()
    await asyncio.wait_for(asyncio.to_thread(builds.join), 10)  # the thread ended

    assert Slow.batches == 1  # no batch after the stop
    assert len(CachedEmbeddings(Slow(), index_dir)) == BATCH  # the first batch is kept
    assert live.index.version == served
