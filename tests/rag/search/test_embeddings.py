"""Embedders: the hashing fake, the content-hash cache, identities and settings."""

from __future__ import annotations

import logging
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from rag.assemble import embeddings_from_settings
from rag.search.embeddings import (
    CachedEmbeddings,
    E5Embeddings,
    HashingEmbeddings,
    embedder_identity,
)
from rag.search.handles import SeparateIndexing, for_indexing
from rag.search.priority import LOWEST
from rag.settings import Settings


class Counting(HashingEmbeddings):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return super().embed_documents(texts)


def test_hashing_embeddings_are_deterministic_and_unit_length() -> None:
    first = HashingEmbeddings().embed_documents(["退费手续费", "annual leave"])
    again = HashingEmbeddings().embed_documents(["退费手续费", "annual leave"])
    assert first == again
    assert [round(float(np.linalg.norm(v)), 5) for v in first] == [1.0, 1.0]
    assert HashingEmbeddings().embed_query("annual leave") == first[1]


def test_hashing_dim_is_validated() -> None:
    with pytest.raises(ValueError, match=r"dim \(4\)"):
        HashingEmbeddings(dim=4)


def test_a_cached_text_is_never_embedded_twice(tmp_path: Path) -> None:
    inner = Counting()
    cached = CachedEmbeddings(inner, tmp_path)
    cached.embed_documents(["a 退费", "b 课时"])
    vectors = cached.embed_documents(["b 课时", "c 年假", "c 年假"])
    assert inner.calls == [["a 退费", "b 课时"], ["c 年假"]]
    assert (cached.embedded, cached.reused) == (3, 2)
    assert vectors[1] == vectors[2] == inner.embed_query("c 年假")


def test_the_cache_survives_a_restart_and_drops_what_is_no_longer_used(tmp_path: Path) -> None:
    first = CachedEmbeddings(Counting(), tmp_path)
    first.embed_documents(["kept", "dropped"])
    first.save()
    inner = Counting()
    second = CachedEmbeddings(inner, tmp_path)
    second.embed_documents(["kept", "dropped"])
    assert inner.calls == []
    from rag.chunks import content_hash

    second.save(keep=[content_hash("kept")])
    third = CachedEmbeddings(Counting(), tmp_path)
    assert len(third) == 1


def test_a_damaged_cache_file_is_rebuilt_not_fatal(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cached = CachedEmbeddings(Counting(), tmp_path)
    cached.path.write_bytes(b"not an npz file")
    with caplog.at_level(logging.ERROR):
        again = CachedEmbeddings(Counting(), tmp_path)
    assert len(again) == 0
    assert "unreadable" in caplog.text


def test_each_embedder_identity_has_its_own_cache_file(tmp_path: Path) -> None:
    small = CachedEmbeddings(HashingEmbeddings(dim=64), tmp_path)
    large = CachedEmbeddings(HashingEmbeddings(dim=256), tmp_path)
    assert small.path != large.path
    assert embedder_identity(small) == embedder_identity(HashingEmbeddings(dim=64))


def test_settings_choose_the_embedder() -> None:
    assert embeddings_from_settings(Settings(embeddings="none")) is None
    assert isinstance(embeddings_from_settings(Settings(embeddings="e5")), E5Embeddings)
    remote = embeddings_from_settings(
        Settings(
            embeddings="openai", embeddings_model="m", embeddings_base_url="http://127.0.0.1:9"
        )
    )
    assert remote is not None
    assert "m@http://127.0.0.1:9" in embedder_identity(remote)


def test_indexing_gets_an_e5_handle_of_its_own_so_a_query_never_waits_for_a_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    served = E5Embeddings()
    both = for_indexing(served)
    assert isinstance(both, SeparateIndexing)
    assert both.queries is served
    assert isinstance(both.documents, E5Embeddings)
    assert both.documents is not served
    assert embedder_identity(both) == embedder_identity(served)  # the same cached vectors

    # A rebuild's batch held in the middle of its pass on the indexing handle:
    from rag.search import embeddings

    inside, release = threading.Event(), threading.Event()
    real = embeddings.E5Embeddings._passages

    def held(self: E5Embeddings, texts: list[str]) -> object:
        if self is both.documents:
            inside.set()
            release.wait(timeout=60)
        return real(self, texts)

    monkeypatch.setattr(embeddings.E5Embeddings, "_passages", held)
    with ThreadPoolExecutor(1) as pool:
        batch = pool.submit(both.embed_documents, ["年假", "加班"])
        assert inside.wait(timeout=60)
        assert len(both.embed_query("年假怎么算？")) == 384
        # nor a few passages a question needs now (its lexical candidates without a vector)
        assert len(both.embed_documents_now(["年假", "病假"])) == 2
        assert not batch.done()
        release.set()
        assert len(batch.result(timeout=60)) == 2


def test_other_embedders_index_through_themselves() -> None:
    hashing = HashingEmbeddings()
    assert for_indexing(hashing) is hashing


class NiceRecorder(HashingEmbeddings):
    """Records the nice value of the thread each call runs on."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[int] = []

    def _nice(self) -> None:
        self.seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self._nice()
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self._nice()
        return super().embed_query(text)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
def test_indexing_embeds_at_the_lowest_cpu_priority_and_queries_do_not() -> None:
    """A rebuild embeds with every core it gets; a question's query embedding must get them
    first. Only the embedding is lowered: the caller (the build, holding the GIL between
    batches) keeps its priority."""
    queries, documents = NiceRecorder(), NiceRecorder()
    both = SeparateIndexing(queries, documents)
    here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    both.embed_documents(["一", "二"])
    both.embed_query("年假怎么算？")

    assert documents.seen == [LOWEST]
    assert queries.seen == [here]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == here
