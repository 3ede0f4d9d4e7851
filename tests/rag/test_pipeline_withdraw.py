"""Withdrawing an answer two people voted down, and the stages a fresh answer reports — with
the in-process cache and with Redis."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import datetime

import pytest

from rag.cache.answers import AnswerCache, MemoryCache
from rag.cache.redis_backend import RedisCache
from rag.messages import WITHDRAWN
from rag.pipeline import Pipeline, Withdrawal
from rag.progress import Stage
from rag.questions import question_digest
from rag.results import Answer, Refusal, Unverified, answer_hash
from rag.reviewed.answers import MemoryStore, ReviewedAnswers, sources_of
from rag.search.index import Index
from tests.fakes.chat_model import ScriptedChatModel
from tests.rag.test_pipeline import IN_KB, index, make_pipeline, threshold
from tests.redis_area import RedisArea

__all__ = ["index", "threshold"]  # the module fixtures, shared with test_pipeline

REPLY = "口语课共分四个级别[1]。"
AT = "2026-12-03T09:30:00+00:00"


@pytest.fixture(params=["memory", "redis"])
async def stores(
    request: pytest.FixtureRequest, redis_area: RedisArea
) -> AsyncIterator[tuple[AnswerCache, ReviewedAnswers]]:
    if request.param == "memory":
        yield MemoryCache(), ReviewedAnswers(MemoryStore())
        return
    redis = redis_area.guarded()  # the process's one client, as the bot has it
    yield RedisCache(redis), ReviewedAnswers.over(redis)
    await redis.aclose()


def _pipeline(
    index: Index,
    threshold: float,
    model: ScriptedChatModel,
    stores: tuple[AnswerCache, ReviewedAnswers],
) -> Pipeline:
    cache, reviewed = stores
    return replace(make_pipeline(index, threshold, model), cache=cache, reviewed=reviewed)


async def _withdraw(
    pipeline: Pipeline, text: str, *, question: str = IN_KB, digest: str = ""
) -> Answer | None:
    version = pipeline.index.version
    return await pipeline.withdraw(
        Withdrawal(question, "all", version, answer_hash(text), "👎 U1, U2", digest)
    )


async def test_a_withdrawn_cached_answer_goes_to_review_and_is_not_cached_again(
    index: Index, threshold: float, stores: tuple[AnswerCache, ReviewedAnswers]
) -> None:
    model = ScriptedChatModel(replies=[REPLY])
    pipeline = _pipeline(index, threshold, model, stores)
    first = await pipeline.answer(IN_KB)
    cached = await pipeline.answer(IN_KB)
    assert cached.provenance.cached_at is not None

    withdrawn = await _withdraw(pipeline, first.text)

    assert withdrawn is not None
    assert withdrawn.text == REPLY, "what the cache held, for the reviewers' card"
    for _ in range(2):  # computed again each time: an unverified draft is never cached
        again = await pipeline.answer(IN_KB)
        assert isinstance(again, Unverified)
        assert [(p.kind, p.message) for p in again.problems] == [("voted_down", WITHDRAWN["zh"])]
        assert again.draft == REPLY
    assert model.calls == 3


async def test_a_question_known_only_by_its_digest_is_withdrawn_all_the_same(
    index: Index, threshold: float, stores: tuple[AnswerCache, ReviewedAnswers]
) -> None:
    """A button carries a long question shortened, and its digest whole."""
    model = ScriptedChatModel(replies=[REPLY])
    pipeline = _pipeline(index, threshold, model, stores)
    first = await pipeline.answer(IN_KB)
    digest = question_digest(IN_KB, "all")
    withdrawn = await _withdraw(pipeline, first.text, question=IN_KB[:3], digest=digest)
    assert withdrawn is not None
    assert withdrawn.text == REPLY
    again = await pipeline.answer(IN_KB)
    assert isinstance(again, Unverified), "not served again from the cache"
    assert [p.kind for p in again.problems] == ["voted_down"]


async def test_a_different_answer_to_the_same_question_is_served(
    index: Index, threshold: float, stores: tuple[AnswerCache, ReviewedAnswers]
) -> None:
    model = ScriptedChatModel(replies=[REPLY, "口语课有四个级别：入门、进阶、流利、商务[1]。"])
    pipeline = _pipeline(index, threshold, model, stores)
    first = await pipeline.answer(IN_KB)
    await _withdraw(pipeline, first.text)
    assert isinstance(await pipeline.answer(IN_KB), Answer)


async def test_a_reviewer_s_rejection_of_the_withdrawn_text_makes_it_a_refusal(
    index: Index, threshold: float, stores: tuple[AnswerCache, ReviewedAnswers]
) -> None:
    _, reviewed = stores
    pipeline = _pipeline(index, threshold, ScriptedChatModel(replies=[REPLY]), stores)
    await pipeline.answer(IN_KB)
    await _withdraw(pipeline, REPLY)
    await reviewed.reject(IN_KB, scope="all", draft=REPLY, reviewer="U9", at=_at())
    result = await pipeline.answer(IN_KB)
    assert isinstance(result, Refusal)
    assert result.reason == "rejected_by_reviewer"


async def test_a_withdrawn_reviewed_answer_is_forgotten_until_approved_again(
    index: Index, threshold: float, stores: tuple[AnswerCache, ReviewedAnswers]
) -> None:
    _, reviewed = stores
    model = ScriptedChatModel(replies=[REPLY])
    pipeline = _pipeline(index, threshold, model, stores)
    hits = (await pipeline.answer(IN_KB)).hits
    text = "口语课共四级[1]。"
    await reviewed.approve(
        IN_KB, scope="all", text=text, sources=sources_of(hits), reviewer="U9", at=_at()
    )
    assert (await pipeline.answer(IN_KB)).provenance.reviewed_by == "U9"

    await _withdraw(pipeline, text)
    assert (await pipeline.answer(IN_KB)).provenance.reviewed_by is None

    await reviewed.approve(
        IN_KB, scope="all", text=text, sources=sources_of(hits), reviewer="U8", at=_at()
    )
    again = await pipeline.answer(IN_KB)
    assert isinstance(again, Answer)
    assert again.provenance.reviewed_by == "U8", "a person vouches for it again"


async def test_a_fresh_answer_reports_its_stages_and_a_cached_one_none(
    index: Index, threshold: float
) -> None:
    pipeline = make_pipeline(index, threshold, ScriptedChatModel(replies=[REPLY]))
    stages: list[Stage] = []
    await pipeline.answer(IN_KB, progress=stages.append)
    assert stages == ["retrieving", "generating", "checking"]
    stages.clear()
    await pipeline.answer(IN_KB, progress=stages.append)
    assert stages == []


async def test_a_refusal_reports_retrieving_only(index: Index, threshold: float) -> None:
    pipeline = make_pipeline(index, threshold, ScriptedChatModel())
    stages: list[Stage] = []
    await pipeline.answer("你们的雅思保过班多少钱？", progress=stages.append)
    assert stages == ["retrieving"]


def _at() -> datetime:
    return datetime.fromisoformat(AT)


async def test_an_answer_voted_down_before_a_reindex_is_withdrawn_under_both_versions(
    index: Index, threshold: float, stores: tuple[AnswerCache, ReviewedAnswers]
) -> None:
    model = ScriptedChatModel(replies=[REPLY])
    pipeline = _pipeline(index, threshold, model, stores)
    await pipeline.answer(IN_KB)
    withdrawn = await pipeline.withdraw(
        Withdrawal(IN_KB, "all", "older", answer_hash(REPLY), "👎 U1, U2")
    )
    assert withdrawn is not None
    assert withdrawn.text == REPLY, "found under the version served now"
    assert isinstance(await pipeline.answer(IN_KB), Unverified)
