"""The vectors shared through Redis: exact round trip, bounded by pruning, never in the way."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import numpy as np
import pytest
from redis.asyncio import Redis

from rag.chunks import content_hash
from rag.search.embeddings import HashingEmbeddings
from rag.serving.shared_vectors import SharedVectors, decode, encode
from rag.serving.sharing import LoopBridge, SharedEmbeddings
from rag.storage.redis_guard import GuardedRedis
from tests.fakes.clock import FakeClock
from tests.redis_area import RedisArea


class Counting(HashingEmbeddings):
    def __init__(self) -> None:
        super().__init__()
        self.embedded: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded.extend(texts)
        return super().embed_documents(texts)


@pytest.fixture
async def redis(redis_area: RedisArea) -> AsyncIterator[GuardedRedis]:
    client = redis_area.guarded()
    yield client
    await client.aclose()


@pytest.fixture
async def store(redis: GuardedRedis) -> AsyncIterator[SharedVectors]:
    # An embedder identity of the test's own: its keys touch nothing else in the database.
    shared = SharedVectors(redis, f"test-{uuid.uuid4().hex}", clock=FakeClock())
    yield shared
    await redis.client.delete(shared.key, shared.used_key)


def vector(seed: int, dim: int = 8) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(dim).astype(np.float32)


async def test_vectors_come_back_bit_for_bit(store: SharedVectors) -> None:
    sent = {"a": vector(1), "b": vector(2)}

    published = await store.publish({key: encode(value) for key, value in sent.items()})
    back = decode(await store.fetch(["a", "b", "never-stored"]))

    assert published is not None
    assert (published.added, published.removed, published.stored) == (2, 0, 2)
    assert back.keys() == {"a", "b"}
    for key, value in sent.items():
        assert back[key].dtype == np.float32
        assert back[key].tobytes() == value.tobytes()


async def test_publishing_again_adds_only_what_redis_lacks(store: SharedVectors) -> None:
    await store.publish({"a": encode(vector(1))})
    published = await store.publish({"a": encode(vector(1)), "b": encode(vector(2))})
    assert published is not None
    assert (published.added, published.stored) == (1, 2)


async def test_a_replaced_vector_is_pruned_once_no_build_used_it_for_a_while(
    store: SharedVectors,
) -> None:
    clock = store.clock
    assert isinstance(clock, FakeClock)
    await store.publish({"old": encode(vector(1)), "kept": encode(vector(2))})

    clock.now += 60  # a change replaced "old"; a machine whose documents lag may still need it
    await store.publish({"kept": encode(vector(2)), "new": encode(vector(3))})
    assert decode(await store.fetch(["old", "kept", "new"])).keys() == {"old", "kept", "new"}

    clock.now += store.keep_replaced_seconds  # an hour on, nobody built with "old" again
    published = await store.publish({"kept": encode(vector(2)), "new": encode(vector(3))})
    assert published is not None
    assert (published.removed, published.stored) == (1, 2)
    assert decode(await store.fetch(["old", "kept", "new"])).keys() == {"kept", "new"}
    assert await store.redis.client.zcard(store.used_key) == 2  # the marks are pruned too


async def test_a_lagging_machine_that_still_uses_a_vector_keeps_it(store: SharedVectors) -> None:
    clock = store.clock
    assert isinstance(clock, FakeClock)
    await store.publish({"old": encode(vector(1))})
    clock.now += store.keep_replaced_seconds - 1
    await store.publish({"old": encode(vector(1))})  # rebuilt from documents not yet pulled
    clock.now += 2
    await store.publish({"new": encode(vector(3))})
    assert decode(await store.fetch(["old", "new"])).keys() == {"old", "new"}


async def test_without_redis_nothing_is_found_and_nothing_raises() -> None:
    down = GuardedRedis(Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.05))
    store = SharedVectors(down, "test-down")
    assert await store.fetch(["a"]) == {}
    assert await store.publish({"a": encode(vector(1))}) is None
    await down.aclose()


def test_damaged_or_inconsistent_vectors_are_not_used() -> None:
    assert decode({"torn": b"\x00\x01\x02"}) == {}
    assert decode({"nan": encode([float("nan"), 1.0])}) == {}
    assert decode({"a": encode(vector(1, 8)), "b": encode(vector(2, 4))}) == {}


async def test_a_build_thread_reads_what_another_process_embedded(store: SharedVectors) -> None:
    bridge = LoopBridge()
    bridge.attach()
    texts = ["退费按剩余课时计算。", "Annual leave is 15 working days."]
    builder, reader = Counting(), Counting()

    built = await asyncio.to_thread(SharedEmbeddings(builder, store, bridge).embed_documents, texts)
    await store.publish({content_hash(t): encode(v) for t, v in zip(texts, built, strict=True)})
    shared = SharedEmbeddings(reader, store, bridge)
    read = await asyncio.to_thread(shared.embed_documents, [*texts, "new passage"])

    assert builder.embedded == texts
    assert reader.embedded == ["new passage"]
    assert (shared.fetched, shared.embedded) == (2, 1)
    assert read[:2] == built


async def test_on_the_loop_itself_the_bridge_embeds_locally_instead_of_deadlocking(
    store: SharedVectors,
) -> None:
    bridge = LoopBridge()
    bridge.attach()
    await store.publish({content_hash("stored"): encode(vector(1))})
    embedder = Counting()

    SharedEmbeddings(embedder, store, bridge).embed_documents(["stored"])  # on the loop's thread

    assert embedder.embedded == ["stored"]
