"""A question's walk through the core goes down once: reviewed answers (before the cache, and
settling what comes out), the cache, the stages — each visited at most once per question,
and the asker's language detected once, at the edge, then carried down."""

from __future__ import annotations

import sys
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

import rag.language
import rag.questions
from bot.answering import Answering
from bot.ports import Origin, Reply
from rag.cache.answers import MemoryCache
from rag.language import Language
from rag.pipeline import Pipeline
from rag.progress import Stage
from rag.results import Answer, Refusal, Result, Unverified
from rag.reviewed.answers import MemoryStore, ReviewedAnswers, sources_of
from rag.search.index import Index
from tests.fakes.chat_model import ScriptedChatModel
from tests.rag.test_pipeline import IN_KB, index, make_pipeline, threshold

__all__ = ["index", "threshold"]

REPLY = "口语课共分四个级别[1]。"
UNCHECKED = "口语课共分九个级别[1]。"  # a number the source doesn't have: to review


class Walk:
    """Records the order in which a question visits the reviewed answers and the cache."""

    def __init__(self) -> None:
        self.steps: list[str] = []


class CountingReviewed(ReviewedAnswers):
    def __init__(self, walk: Walk) -> None:
        super().__init__(MemoryStore())
        self.walk = walk

    async def lookup(self, *args: Any, **kwargs: Any) -> Answer | None:
        self.walk.steps.append("reviewed:lookup")
        return await super().lookup(*args, **kwargs)

    async def is_withdrawn(self, *args: Any, **kwargs: Any) -> bool:
        self.walk.steps.append("reviewed:withdrawn?")
        return await super().is_withdrawn(*args, **kwargs)

    async def is_rejected(self, *args: Any, **kwargs: Any) -> bool:
        self.walk.steps.append("reviewed:rejected?")
        return await super().is_rejected(*args, **kwargs)


class CountingCache(MemoryCache):
    def __init__(self, walk: Walk) -> None:
        super().__init__()
        self.walk = walk

    async def get_or_compute(self, key: str, compute: Any) -> Result:
        self.walk.steps.append("cache")

        async def stages() -> Result:
            self.walk.steps.append("stages")
            return await compute()  # type: ignore[no-any-return]

        return await super().get_or_compute(key, stages)


def _pipeline(index: Index, threshold: float, reply: str, walk: Walk) -> Pipeline:
    model = ScriptedChatModel(replies=[reply])
    pipeline = make_pipeline(index, threshold, model)
    return replace(pipeline, cache=CountingCache(walk), reviewed=CountingReviewed(walk))


async def test_a_fresh_answer_walks_down_once(index: Index, threshold: float) -> None:
    walk = Walk()
    result = await _pipeline(index, threshold, REPLY, walk).answer(IN_KB)
    assert isinstance(result, Answer)
    assert walk.steps == ["reviewed:lookup", "cache", "stages", "reviewed:withdrawn?"]


async def test_a_cached_answer_is_settled_once(index: Index, threshold: float) -> None:
    walk = Walk()
    pipeline = _pipeline(index, threshold, REPLY, walk)
    await pipeline.answer(IN_KB)
    walk.steps.clear()
    assert (await pipeline.answer(IN_KB)).provenance.cached_at is not None
    assert walk.steps == ["reviewed:lookup", "cache", "reviewed:withdrawn?"]


async def test_a_rejected_draft_is_refused_in_one_pass_and_cached(
    index: Index, threshold: float
) -> None:
    walk = Walk()
    pipeline = _pipeline(index, threshold, UNCHECKED, walk)
    assert isinstance(await pipeline.answer(IN_KB), Unverified)
    assert pipeline.reviewed is not None
    at = datetime.now(UTC)
    await pipeline.reviewed.reject(IN_KB, scope="all", draft=UNCHECKED, reviewer="U1", at=at)
    walk.steps.clear()
    refused = await pipeline.answer(IN_KB)
    assert isinstance(refused, Refusal)
    assert refused.reason == "rejected_by_reviewer"
    assert walk.steps == ["reviewed:lookup", "cache", "stages", "reviewed:rejected?"]
    walk.steps.clear()
    assert isinstance(await pipeline.answer(IN_KB), Refusal)
    assert "stages" not in walk.steps  # the refusal was kept: the model is not asked again


async def test_a_reviewed_answer_skips_the_cache(index: Index, threshold: float) -> None:
    walk = Walk()
    pipeline = _pipeline(index, threshold, REPLY, walk)
    first = await pipeline.answer(IN_KB)
    assert pipeline.reviewed is not None
    await pipeline.reviewed.approve(
        IN_KB,
        scope="all",
        text=first.text,
        sources=sources_of(first.hits),
        reviewer="U1",
        at=datetime.now(UTC),
    )
    walk.steps.clear()
    result = await pipeline.answer(IN_KB)
    assert result.provenance.reviewed_by == "U1"
    assert walk.steps == ["reviewed:lookup", "reviewed:withdrawn?"]


# --- the asker's language, detected once -----------------------------------------------------


@pytest.fixture
def detections(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every detect_language call in rag and bot, by the text it was asked about."""
    seen: list[str] = []
    real = rag.language.detect_language

    def counting(text: str) -> Language:
        seen.append(text)
        return real(text)

    for name, module in list(sys.modules.items()):
        if (
            name.split(".")[0] in {"rag", "bot"}
            and getattr(module, "detect_language", None) is real
        ):
            monkeypatch.setattr(module, "detect_language", counting)
    return seen


class Thread:
    def __init__(self) -> None:
        self.replies: list[Reply] = []

    async def working(self, language: Language) -> None:
        return None

    def reached(self, stage: Stage, language: Language) -> None:
        return None

    async def reply(self, reply: Reply) -> int:
        self.replies.append(reply)
        return 1

    async def failed(self, language: Language) -> None:
        return None


async def test_the_askers_language_is_detected_once_per_question(
    index: Index, threshold: float, detections: list[str]
) -> None:
    pipeline = replace(
        make_pipeline(index, threshold, ScriptedChatModel(replies=[REPLY])), cache=MemoryCache()
    )
    thread = Thread()
    origin = Origin("C1", "t1", "m1", "U1", "im", IN_KB, "all")
    await Answering(pipeline).answer("e1", origin, thread)
    assert isinstance(thread.replies[0].result, Answer)
    assert thread.replies[0].language == "zh"
    assert detections.count(IN_KB) == 1


async def test_the_language_given_is_the_one_answered_in(index: Index, threshold: float) -> None:
    model = ScriptedChatModel(replies=[REPLY])
    result = await make_pipeline(index, threshold, model).answer(IN_KB, language="en")
    assert result.language == "en"
    assert "Answer in English" in str(model.prompts[0][-1].content)


# --- the question digested once ----------------------------------------------------------


@pytest.fixture
def digests(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every question_digest call in rag, by the question it was asked about."""
    seen: list[str] = []
    real = rag.questions.question_digest

    def counting(question: str, scope: str) -> str:
        seen.append(question)
        return real(question, scope)

    for name, module in list(sys.modules.items()):
        if name.split(".")[0] == "rag" and getattr(module, "question_digest", None) is real:
            monkeypatch.setattr(module, "question_digest", counting)
    return seen


async def test_a_question_is_digested_once_for_the_cache_and_the_reviewed_answers(
    index: Index, threshold: float, digests: list[str]
) -> None:
    """The cache key, the reviewed-answer lookup and the withdrawn and rejected checks that
    settle the result all key on the same digest: it was computed four times a question."""
    walk = Walk()
    pipeline = _pipeline(index, threshold, UNCHECKED, walk)
    assert isinstance(await pipeline.answer(IN_KB), Unverified)
    assert pipeline.reviewed is not None
    await pipeline.reviewed.reject(
        IN_KB, scope="all", draft=UNCHECKED, reviewer="U1", at=datetime.now(UTC)
    )
    digests.clear()
    walk.steps.clear()
    assert isinstance(await pipeline.answer(IN_KB), Refusal)
    assert walk.steps == ["reviewed:lookup", "cache", "stages", "reviewed:rejected?"]
    assert digests == [IN_KB]
