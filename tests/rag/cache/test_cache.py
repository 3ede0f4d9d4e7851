"""The answer cache: keys, what is kept, hits, single-flight — in memory and in a real Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from rag.assemble import cache_from_settings, redis_from_settings
from rag.cache.answers import AnswerCache, CachePolicy, MemoryCache, cache_key
from rag.cache.redis_backend import RedisCache
from rag.generate.llm import GenerationError
from rag.questions import normalize_question, question_digest
from rag.results import Answer
from rag.settings import Settings
from tests.fakes.clock import FakeClock
from tests.rag.cache_fakes import CountingCompute, answer, refusal, unverified
from tests.redis_area import RedisArea

# --- normalisation and keys -----------------------------------------------------------------


@pytest.mark.parametrize(
    "variant",
    [
        "口语课一共有几级？",
        "口语课一共有几级",
        " 口语课一共有几级?",
        "口语课一共有几级？？ ",
        "口语课一共有几级。",
        "@citebot 口语课一共有几级？",
        "@citebot口语课一共有几级",
        "「口语课一共有几级」",
        "口语课 一共有几级？",
        "\u3000口语课一共有几级！",
    ],
)
def test_trivially_different_phrasings_normalise_to_one_question(variant: str) -> None:
    assert normalize_question(variant) == "口语课一共有几级"


def test_normalisation_folds_case_width_and_inner_whitespace_but_keeps_words_apart() -> None:
    assert normalize_question("  How many  LEAVE days?\n") == "how many leave days"
    assert normalize_question("ＶＰＮ　怎么连？") == "vpn 怎么连"
    assert normalize_question("annual leave") != normalize_question("annualleave")
    assert normalize_question("退费 50 元还是 80 元？") == "退费 50 元还是 80 元"


def test_different_questions_stay_different() -> None:
    assert normalize_question("口语课一共有几级？") != normalize_question("口语课一共有几课时？")
    assert normalize_question("C++?") == "c++"


BASE = {"index_version": "i1", "model_id": "extractive", "prompt_version": "p1"}


@pytest.mark.parametrize(
    "change",
    [
        {"index_version": "i2"},
        {"model_id": "openai-compatible:gpt-4o-mini"},
        {"prompt_version": "p2"},
    ],
)
def test_key_changes_with_anything_that_changes_the_answer(change: dict[str, str]) -> None:
    digest = question_digest("q", "all")
    assert cache_key(digest, **{**BASE, **change}) != cache_key(digest, **BASE)


def test_key_is_stable_and_follows_the_question_and_its_scope() -> None:
    key = cache_key(question_digest("口语课一共有几级", "all"), **BASE)
    assert key == cache_key(question_digest("口语课一共有几级？", "all"), **BASE)
    assert key.startswith("v2:")
    assert len(key) == 3 + 40
    assert key != cache_key(question_digest("口语课一共有几级", "hr-only"), **BASE)
    # "a" + "b|c" must not collide with "a|b" + "c": the fields are encoded, not joined
    assert question_digest("a|b", "c") != question_digest("a", "b|c")


# --- behaviour shared by both implementations --------------------------------------------------


@pytest.fixture(params=["memory", "redis"])
async def cache(
    request: pytest.FixtureRequest, redis_area: RedisArea
) -> AsyncIterator[AnswerCache]:
    if request.param == "memory":
        memory = MemoryCache()
        yield memory
        await memory.aclose()
        return
    redis = RedisCache.from_url(redis_area.url, key_prefix=redis_area.prefix, poll_seconds=0.01)
    yield redis
    await redis.clear()
    await redis.aclose()


async def test_second_ask_is_a_hit_that_says_when_it_was_first_given(cache: AnswerCache) -> None:
    compute = CountingCompute()
    before = datetime.now(UTC)
    first = await cache.get_or_compute("v1:k", compute)
    second = await cache.get_or_compute("v1:k", compute)
    assert compute.calls == 1
    assert first.provenance.cached_at is None
    assert second.provenance.cached_at is not None
    assert second.provenance.cached_at >= before
    assert isinstance(second, Answer)
    assert second.text == first.text
    assert second.hits == first.hits
    assert set(second.timings_ms) == {"cache"}
    stats = await cache.stats()
    assert (stats.hits, stats.misses, stats.keys) == (1, 1, 1)


async def test_refusals_are_cached_too(cache: AnswerCache) -> None:
    compute = CountingCompute(refusal())
    await cache.get_or_compute("v1:r", compute)
    again = await cache.get_or_compute("v1:r", compute)
    assert compute.calls == 1
    assert again.verdict == "refusal"


async def test_unverified_drafts_are_never_cached(cache: AnswerCache) -> None:
    compute = CountingCompute(unverified())
    for _ in range(2):
        result = await cache.get_or_compute("v1:u", compute)
        assert result.verdict == "unverified"
        assert result.provenance.cached_at is None
    assert compute.calls == 2
    assert (await cache.stats()).keys == 0


async def test_a_failed_generation_propagates_and_stores_nothing(cache: AnswerCache) -> None:
    failing = CountingCompute(GenerationError("timeout", retryable=True, attempts=4))
    with pytest.raises(GenerationError):
        await cache.get_or_compute("v1:f", failing)
    recovered = CountingCompute()
    result = await cache.get_or_compute("v1:f", recovered)
    assert recovered.calls == 1
    assert result.provenance.cached_at is None


async def test_twenty_concurrent_identical_questions_compute_once(cache: AnswerCache) -> None:
    compute = CountingCompute(delay=0.05)
    results = await asyncio.gather(*(cache.get_or_compute("v1:c", compute) for _ in range(20)))
    assert compute.calls == 1
    assert {result.text for result in results} == {answer().text}


async def test_concurrent_callers_share_the_failure_of_their_one_computation(
    cache: AnswerCache,
) -> None:
    failing = CountingCompute(GenerationError("429", retryable=True, attempts=4), delay=0.02)
    outcomes = await asyncio.gather(
        *(cache.get_or_compute("v1:cf", failing) for _ in range(5)), return_exceptions=True
    )
    assert failing.calls == 1
    assert all(isinstance(outcome, GenerationError) for outcome in outcomes)


async def test_clear_forgets_everything_stored(cache: AnswerCache) -> None:
    compute = CountingCompute()
    await cache.get_or_compute("v1:a", compute)
    await cache.get_or_compute("v1:b", compute)
    assert await cache.clear() == 2
    await cache.get_or_compute("v1:a", compute)
    assert compute.calls == 3


# --- in-process specifics ------------------------------------------------------------------


async def test_memory_entries_expire_after_their_ttl_refusals_sooner() -> None:
    clock = FakeClock()
    cache = MemoryCache(policy=CachePolicy(ttl_seconds=100, refusal_ttl_seconds=10), clock=clock)
    answers, refusals = CountingCompute(answer()), CountingCompute(refusal())
    await cache.get_or_compute("v1:a", answers)
    await cache.get_or_compute("v1:r", refusals)
    clock.advance(11)
    await cache.get_or_compute("v1:a", answers)
    await cache.get_or_compute("v1:r", refusals)
    assert (answers.calls, refusals.calls) == (1, 2)
    clock.advance(90)
    await cache.get_or_compute("v1:a", answers)
    assert answers.calls == 2


async def test_memory_cache_keeps_at_most_max_entries_dropping_the_oldest() -> None:
    cache = MemoryCache(max_entries=2)
    compute = CountingCompute()
    for key in ("v1:1", "v1:2", "v1:3"):
        await cache.get_or_compute(key, compute)
    await cache.get_or_compute("v1:3", compute)
    await cache.get_or_compute("v1:1", compute)
    assert compute.calls == 4  # 3 stayed, 1 was dropped


def test_invalid_ttl_is_refused_with_the_value() -> None:
    with pytest.raises(ValueError, match=r"refusal_ttl_seconds \(0\)"):
        CachePolicy(refusal_ttl_seconds=0)


async def test_the_caches_default_to_the_settings_ttls(redis_area: RedisArea) -> None:
    defaults = Settings()
    expected = CachePolicy(defaults.cache_ttl_seconds, defaults.refusal_ttl_seconds)
    redis = RedisCache.from_url(redis_area.url, key_prefix=redis_area.prefix)
    try:
        assert MemoryCache().policy == redis.policy == expected
    finally:
        await redis.aclose()


async def test_settings_without_redis_url_give_the_in_process_cache(redis_area: RedisArea) -> None:
    assert redis_from_settings(Settings()) is None
    assert isinstance(cache_from_settings(Settings(), None), MemoryCache)
    settings = Settings(**redis_area.settings, refusal_ttl_seconds=60)
    redis = redis_from_settings(settings)
    assert redis is not None
    shared = cache_from_settings(settings, redis)
    assert isinstance(shared, RedisCache)
    assert shared.redis is redis  # the process's one client, not a pool of its own
    assert shared.prefix == f"{redis_area.prefix}answer:"  # under REDIS_KEY_PREFIX
    assert shared.policy.refusal_ttl_seconds == 60
    await shared.aclose()
    assert await redis.run(lambda: redis.client.ping())  # left open for whoever built it
    await redis.aclose()
