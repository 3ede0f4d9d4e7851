"""The bundled e5 on onnxruntime against the numpy engine it replaces.

Questions (4-bit blocks, int8 activations per block) get the numpy engine's vectors to a
cosine of 0.999 or more; passages (int8 throughout) stay within 0.995 of them. A question
asked again is answered from the recent ones; without onnxruntime the numpy engine answers,
under its own identity; the graph is written once a machine and read after that.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag.search import e5_model, e5_runtime, embeddings
from rag.search.embeddings import E5Embeddings, embedder_identity
from rag.search.gate import E5, gate_for

TEXTS = [
    "员工带薪休假天数规定：入职满一年的员工每年享有 10 个工作日的带薪年假。",
    "年假怎么算？",
    "How do I reset my VPN password?",
    "Passwords must be at least 12 characters long   and may not contain your name.",
    "ＡＰＩＳＩＸ　网关的 `proxy-rewrite` 插件：改写 upstream 的 URI（２０２６版）…🙂",
    "",
]


@pytest.fixture(scope="module")
def numpy_e5() -> E5Embeddings:
    return E5Embeddings(engine="numpy")


def test_question_vectors_are_the_numpy_engines(numpy_e5: E5Embeddings) -> None:
    onnx_e5 = E5Embeddings(engine="onnx")
    for text in TEXTS:
        fast = np.asarray(onnx_e5.embed_query(text))
        assert np.linalg.norm(fast) == pytest.approx(1.0, abs=1e-5)
        assert float(fast @ np.asarray(numpy_e5.embed_query(text))) >= 0.999, text


def test_passage_vectors_stay_close_to_the_numpy_engines(numpy_e5: E5Embeddings) -> None:
    long = " ".join(TEXTS[:4]) * 12  # over 512 tokens: windows, averaged by their tokens
    texts = [*TEXTS, long]
    fast = np.asarray(E5Embeddings(engine="onnx").embed_documents(texts))
    exact = np.asarray(numpy_e5.embed_documents(texts))
    cosines = (fast * exact).sum(axis=1)
    assert cosines[[n for n, text in enumerate(texts) if text]].min() >= 0.995
    assert cosines[texts.index("")] >= 0.98  # the prefix alone: five tokens
    # and they are a space of their own: cached vectors of one are never mixed with the other
    assert E5Embeddings(engine="onnx").identity != numpy_e5.identity


def test_a_question_asked_again_is_not_embedded_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embeddings, "RECENT_QUESTIONS", 2)
    e5 = E5Embeddings(engine="onnx")
    real = e5_runtime.query_engine(e5.threads)
    asked: list[str] = []

    class Counting:
        def encode(self, texts: list[str], prefix: str) -> np.ndarray:
            asked.extend(texts)
            return real.encode(texts, prefix)

    monkeypatch.setattr(e5_runtime, "query_engine", lambda threads: Counting())
    first = e5.embed_query("年假怎么算？")
    assert e5.embed_query("年假怎么算？") == first
    assert asked == ["年假怎么算？"]
    e5.embed_query("病假怎么算？")
    e5.embed_query("How do I reset my VPN password?")  # the third: the first is dropped
    e5.embed_query("年假怎么算？")
    assert asked == [
        "年假怎么算？",
        "病假怎么算？",
        "How do I reset my VPN password?",
        "年假怎么算？",
    ]


def test_without_onnxruntime_the_numpy_engine_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(e5_runtime, "available", lambda: False)
    e5 = E5Embeddings()
    assert e5.engine == "numpy"
    assert embedder_identity(e5) == E5Embeddings.NUMPY_IDENTITY
    assert gate_for(embedder_identity(e5)) is E5
    [vector] = e5.embed_documents(["年假怎么算？"])
    assert len(vector) == 384


def test_with_onnxruntime_it_is_the_default_and_keeps_e5s_gate() -> None:
    e5 = E5Embeddings()
    assert e5.engine == "onnx"
    assert gate_for(embedder_identity(e5)) is E5


def test_the_graph_is_written_once_and_read_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    stale = tmp_path / "citebot" / "e5-blocks-0000000000000000.onnx"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"from another version")
    written = e5_runtime.graph("blocks")
    assert isinstance(written, Path)
    assert written.parent == tmp_path / "citebot"
    assert written.stat().st_size > 10_000_000  # 21M weights at 4 bits
    assert not stale.exists()

    def must_not_convert(kind: str) -> bytes:
        raise AssertionError(f"converted {kind} again")

    monkeypatch.setattr(e5_runtime, "_converted", must_not_convert)
    assert e5_runtime.graph("blocks") == written
    vector = e5_runtime.Engine(e5_runtime.light_model(), written, 1).encode(["年假"], "query: ")
    assert vector.shape == (1, 384)


def test_the_tokenizer_read_back_splits_as_the_model_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    e5_runtime._light_model.cache_clear()
    e5_runtime.light_model()  # parses the file, keeps the tokenizer's state
    [kept] = (tmp_path / "citebot").glob("e5-tokenizer-*.marshal")
    e5_runtime._light_model.cache_clear()
    real = e5_model._tokenizer

    def must_not_parse(read: e5_model._Reader, *, parse: bool = True) -> object:
        assert not parse, "the vocabulary was parsed again"
        return real(read, parse=parse)

    monkeypatch.setattr(e5_model, "_tokenizer", must_not_parse)
    read_back = e5_runtime.light_model().tokenizer
    monkeypatch.undo()
    e5_runtime._light_model.cache_clear()
    parsed = e5_model.load(e5_model.model_file(), layers=False).tokenizer
    for text in [*TEXTS, "ﬁ Ⅻ ｶﾀｶﾅ 𠀀"]:
        assert read_back.ids(text) == parsed.ids(text), text
    assert kept.exists()
