"""The cache seen through ``Pipeline.answer()``: one model call for a crowd, no stale answers.

Two pipelines over one Redis stand for two bot processes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from rag.cache.answers import AnswerCache, MemoryCache
from rag.cache.redis_backend import RedisCache
from rag.generate.llm import Generator
from rag.ingest.documents import SourceDocument
from rag.pipeline import Pipeline
from rag.search.build import index_documents
from rag.search.index import Index
from tests.fakes.chat_model import ScriptedChatModel
from tests.redis_area import RedisArea

LEVELS = """# 课程体系

## 一、级别设置

口语课共分四个级别：入门级、进阶级、流利级、商务级。每个级别 16 课时，每课时 45 分钟。
"""
LEVELS_CHANGED = LEVELS.replace(
    "四个级别：入门级、进阶级、流利级、商务级", "三个级别：入门级、进阶级、流利级"
)
LEAVE = """# Annual leave

Full-time employees receive 20 days of paid annual leave per year.
"""
PHRASINGS = [
    "口语课一共有几级？",
    "口语课一共有几级",
    " 口语课一共有几级?",
    "@citebot 口语课一共有几级？",
]


def build_index(levels: str) -> Index:
    docs = [
        SourceDocument(source="courses/levels.md", text=levels, title="课程体系"),
        SourceDocument(source="hr/leave.md", text=LEAVE, title="Annual leave"),
    ]
    return index_documents(docs, embeddings=None)


def pipeline(index: Index, model: ScriptedChatModel, cache: AnswerCache) -> Pipeline:
    # A threshold every question here clears: only the cache's behaviour is under test.
    return Pipeline(index=index, generator=Generator(model), cache=cache, min_score=-1e9)


@pytest.fixture
async def caches(redis_area: RedisArea) -> AsyncIterator[tuple[RedisCache, RedisCache]]:
    # The shipped 0.2 s per cache call gives up on a Redis slowed by a loaded machine (then
    # each process asks the model itself, by design); what is under test here is the
    # single flight across processes, so the bound is one no healthy Redis reaches.
    patient = {
        "timeout_seconds": 5.0,
        "socket_timeout_seconds": 5.0,
        "connect_timeout_seconds": 5.0,
    }
    first, second = (
        RedisCache.from_url(
            redis_area.url, key_prefix=redis_area.prefix, poll_seconds=0.01, **patient
        )
        for _ in range(2)
    )
    yield first, second
    await first.clear()
    await first.aclose()
    await second.aclose()


async def test_twenty_askers_in_two_processes_cost_one_model_call(
    caches: tuple[RedisCache, RedisCache],
) -> None:
    index = build_index(LEVELS)
    model = ScriptedChatModel(replies=["口语课共分四个级别[1]。"])
    first, second = (pipeline(index, model, cache) for cache in caches)
    asks = [(first if i % 2 else second).answer(PHRASINGS[i % len(PHRASINGS)]) for i in range(20)]
    results = await asyncio.gather(*asks)
    assert model.calls == 1
    assert {result.verdict for result in results} == {"answer"}
    later = await second.answer("口语课一共有几级")
    assert later.provenance.cached_at is not None
    assert model.calls == 1


async def test_reindexed_documents_never_get_the_old_answer() -> None:
    cache = MemoryCache()
    model = ScriptedChatModel(replies=["口语课共分四个级别[1]。", "口语课共分三个级别[1]。"])
    old = await pipeline(build_index(LEVELS), model, cache).answer(PHRASINGS[0])
    new = await pipeline(build_index(LEVELS_CHANGED), model, cache).answer(PHRASINGS[0])
    assert model.calls == 2
    assert new.provenance.cached_at is None
    assert "三个级别" in new.text
    assert "四个级别" in old.text
