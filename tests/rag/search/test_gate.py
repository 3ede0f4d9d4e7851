"""The refusal gate: its formula, which constants apply, and its decisions on labelled questions."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from rag.ingest.documents import SourceDocument
from rag.search.build import index_documents
from rag.search.embeddings import E5Embeddings, HashingEmbeddings, embedder_identity
from rag.search.gate import E5, HASHING, LEXICAL_ONLY, GateModel, Standard, Weights, gate_for

KNOWLEDGE = [
    SourceDocument(
        source="refund.md",
        title="退费与转班制度",
        text=(
            "# 退费与转班制度\n\n## 退费计算\n\n退费金额 = 实付金额 × 剩余课时 ÷ 总课时 − 手续费。"
            "手续费为可退金额的 5%，最低 50 元。教材费每级 280 元，不予退还。\n\n"
            "## 转班\n\n开课后四周内可以免费转班一次，之后转班收取 100 元手续费。\n"
        ),
    ),
    SourceDocument(
        source="courses.md",
        title="口语课程体系",
        text=(
            "# 口语课程体系\n\n口语课共四个级别：入门级、进阶级、流利级、商务级。"
            "每级 16 课时，每课时 45 分钟，八周学完。流利级单独报名 4800 元。\n"
        ),
    ),
    SourceDocument(
        source="it/passwords.md",
        title="Password policy",
        text=(
            "# Password policy\n\nPasswords must be at least 14 characters long and are changed "
            "every 180 days. Multi-factor authentication is required for email and VPN access.\n"
        ),
    ),
    SourceDocument(
        source="hr/leave.md",
        title="Annual leave",
        text=(
            "# Annual leave\n\nFull-time employees receive 20 days of paid annual leave per year. "
            "Unused leave expires on 31 March of the following year.\n"
        ),
    ),
]
ANSWERABLE = [
    "退费手续费最低收多少？",
    "流利级单独报名多少钱？",
    "开课后多久内可以免费转班？",
    "How long must a password be?",
    "How many days of paid annual leave do full-time employees get?",
]
UNANSWERABLE = [
    "公司食堂几点开饭？",
    "火星有几颗卫星？",
    "Who won the football world cup in 1998?",
    "What is the parking fee at the airport?",
]


@pytest.mark.parametrize("embeddings", [None, HashingEmbeddings()], ids=["lexical", "hashing"])
def test_gate_answers_the_answerable_and_refuses_the_rest(
    embeddings: HashingEmbeddings | None,
) -> None:
    index = index_documents(KNOWLEDGE, embeddings=embeddings)
    for question in ANSWERABLE:
        assert index.search(question, 5)[0].score >= index.min_score, question
    for question in UNANSWERABLE:
        assert index.search(question, 5)[0].score < index.min_score, question


def floats(*values: float) -> np.ndarray:
    return np.asarray(values, np.float32)


def test_score_is_the_mean_of_the_standardised_similarities() -> None:
    gate = GateModel("t", Standard(0.4, 0.2), Standard(0.2, 0.1), Standard(0.8, 0.05), 0.0)
    coverage, cosine, dense = floats(0.4, 0.8), floats(0.2, 0.4), floats(0.8, 0.75)
    assert gate.scores(coverage, cosine, dense).tolist() == pytest.approx([0.0, (2 + 2 - 1) / 3])
    assert gate.scores(coverage, cosine, None).tolist() == pytest.approx([0.0, 2.0])


def test_passages_are_ranked_by_the_ranking_weights_and_scored_by_all_four() -> None:
    ranking = Weights(coverage=0.5, cosine=0.0, dense=1.0, standing=0.0)
    gate = GateModel(
        "t", Standard(0.4, 0.2), Standard(0.2, 0.1), Standard(0.8, 0.05), 0.0, ranking=ranking
    )
    # the first repeats a question word in a short passage (high tf-idf cosine), the second
    # holds the question's words and is nearer in meaning
    coverage, cosine, dense = floats(0.6, 0.6), floats(0.6, 0.2), floats(0.80, 0.85)
    assert gate.scores(coverage, cosine, dense).tolist() == pytest.approx([5 / 3, 2 / 3])
    assert gate.scored(coverage, cosine, dense)[1].tolist() == pytest.approx([1 / 3, 1.0])
    equal = GateModel("t", Standard(0.4, 0.2), Standard(0.2, 0.1), Standard(0.8, 0.05), 0.0)
    assert equal.scored(coverage, cosine, dense)[1].tolist() == pytest.approx([5 / 3, 2 / 3])
    assert gate.identity != equal.identity, "cached answers depend on the order"


def test_the_index_answers_from_the_first_ranked_passage_with_its_gate_score() -> None:
    index = index_documents(KNOWLEDGE, embeddings=HashingEmbeddings())
    ranking = Weights(coverage=1.0, cosine=0.0, dense=0.0, standing=0.0)
    by_coverage = index.regated(replace(index.gate, ranking=ranking))
    question = UNANSWERABLE[1]  # where coverage alone and the gate's mean disagree
    signals = index.signals(question)
    expected = int(np.argmax(signals.scored(by_coverage.gate)[1]))
    assert expected != int(np.argmax(signals.scores(index.gate)))
    first = by_coverage.search(question, 3)[0]
    assert first.chunk == index.chunks[expected]
    assert first.score == pytest.approx(float(signals.scores(index.gate)[expected]))


@pytest.mark.parametrize(
    "weights", [(-1.0, 1.0, 1.0, 1.0), (0.0, 0.0, 1.0, 1.0)], ids=["negative", "no lexical"]
)
def test_weights_that_cannot_rank_are_refused(weights: tuple[float, ...]) -> None:
    with pytest.raises(ValueError, match="weights"):
        Weights(*weights)


def test_lexical_gate_ignores_dense_scores() -> None:
    coverage, cosine = floats(0.5), floats(0.3)
    with_dense = LEXICAL_ONLY.scores(coverage, cosine, floats(0.99))
    assert with_dense.tolist() == LEXICAL_ONLY.scores(coverage, cosine, None).tolist()


def test_higher_similarity_never_lowers_the_score() -> None:
    low = E5.scores(floats(0.3), floats(0.1), floats(0.85))
    assert E5.scores(floats(0.6), floats(0.1), floats(0.85)) > low
    assert E5.scores(floats(0.3), floats(0.3), floats(0.85)) > low
    assert E5.scores(floats(0.3), floats(0.1), floats(0.9)) > low


def test_each_embedder_gets_its_own_constants_and_unknown_ones_the_lexical_gate() -> None:
    assert gate_for(None) is LEXICAL_ONLY
    assert gate_for(embedder_identity(E5Embeddings())) is E5
    assert gate_for(embedder_identity(HashingEmbeddings())) is HASHING
    assert gate_for("OpenAIEmbeddings:text-embedding-3-small@:") is LEXICAL_ONLY


def test_identity_changes_with_the_constants() -> None:
    assert E5.identity != LEXICAL_ONLY.identity
    one = GateModel("x", Standard(0.4, 0.2), Standard(0.2, 0.1), None, 0.0)
    assert one.identity != replace(one, cosine=Standard(0.2, 0.2)).identity


def test_a_standard_deviation_must_be_positive() -> None:
    with pytest.raises(ValueError, match=r"must be > 0, got 0.0 \(mean 0.2\)"):
        Standard(0.2, 0.0)
