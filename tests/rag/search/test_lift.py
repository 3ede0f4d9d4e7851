"""The first passage's sentence lift: a sentence nearer the question than its passage."""

from __future__ import annotations

from dataclasses import replace

import pytest
from langchain_core.embeddings import Embeddings

from rag.assemble import similarity_from_settings
from rag.cache.answers import MemoryCache
from rag.generate.llm import Generator
from rag.pipeline import Pipeline
from rag.results import Answer, Refusal
from rag.search.build import index_documents
from rag.search.embeddings import E5Embeddings, HashingEmbeddings
from rag.search.gate import GateModel, Standard
from rag.search.lift import CHARS, SENTENCES, Lifter, by_words, lift, sentences
from rag.settings import Settings
from rag.similarity import SentenceSimilarity, shared
from tests.fakes.chat_model import ScriptedChatModel
from tests.rag.search.test_gate import KNOWLEDGE

QUESTION = "APISIX 默认监听哪个端口？"
ANSWERING = "APISIX 默认监听 9080 端口。"


class Meaning(Embeddings):
    """Vectors by hand: the question and the sentence that answers it point one way, the
    other sentences another, each counted as it is embedded."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += texts
        return [[1.0, 0.0] if "9080" in text else [0.6, 0.8] for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return [1.0, 0.0]


class Failing(Meaning):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise ConnectionError("embedding endpoint down")


def similarity(embeddings: Embeddings) -> SentenceSimilarity:
    return SentenceSimilarity(embeddings, "test")


def test_sentences_are_read_line_by_line_cut_and_without_debris() -> None:
    text = f"第一句话在这里。第二句也在。\n- 。\n{'长' * 300}。"
    assert sentences(text) == ["第一句话在这里。", "第二句也在。", "长" * CHARS]


def test_the_sentences_holding_the_rare_question_words_are_the_ones_embedded() -> None:
    pieces = ["端口可以修改。", "APISIX 是网关。", ANSWERING, "默认配置见下。"]
    weights = {"apisix": 4.0, "默认": 2.0, "端口": 1.0}
    assert by_words(pieces, weights, 2) == [ANSWERING, "APISIX 是网关。"]
    assert by_words(pieces, {}, 2) == pieces[:2], "with no shared word, the first come first"


def test_the_lift_is_the_best_chosen_sentence_over_the_passage() -> None:
    text = f"APISIX 是一个网关。它支持插件。{ANSWERING}更多配置见文档。"
    embeddings = Meaning()
    weights = {"apisix": 4.0, "端口": 2.0, "默认": 2.0}
    assert lift(QUESTION, text, 0.7, weights, similarity(embeddings)) == pytest.approx(0.3)
    assert len(embeddings.embedded) == SENTENCES
    only_topic = "APISIX 是一个网关。它支持插件。端口可以修改。"
    assert lift(QUESTION, only_topic, 0.7, weights, similarity(Meaning())) == pytest.approx(-0.1)


def test_no_sentence_or_a_failing_embedder_gives_no_lift() -> None:
    assert lift(QUESTION, "。", 0.7, {}, similarity(Meaning())) is None
    assert lift(QUESTION, ANSWERING, 0.7, {}, similarity(Failing())) is None


GATE = GateModel(
    "t", Standard(0.4, 0.2), Standard(0.2, 0.1), Standard(0.8, 0.05), 0.0, lift=Standard(0.0, 0.1)
)


def test_the_gate_adds_the_standardised_weighed_lift_only_when_it_weighs_one() -> None:
    assert GATE.lifted(0.5, 0.3) == 0.5, "weight 0: the score as it is"
    weighed = replace(GATE, lift_weight=0.2)
    assert weighed.lifted(0.5, 0.3) == pytest.approx(0.5 + 0.2 * 3)
    assert weighed.lifted(0.5, -0.1) == pytest.approx(0.5 - 0.2)
    assert weighed.identity != GATE.identity, "cached answers depend on the lift"


@pytest.mark.parametrize("weight", [-0.1, 0.2])
def test_a_lift_weight_needs_a_lift_standard_and_a_sign(weight: float) -> None:
    without = replace(GATE, lift=None) if weight > 0 else GATE
    with pytest.raises(ValueError, match="lift weight"):
        replace(without, lift_weight=weight)


def test_the_index_lifts_the_first_hit_only_and_only_with_a_lifting_gate() -> None:
    index = index_documents(KNOWLEDGE, embeddings=HashingEmbeddings())
    question = "流利级单独报名多少钱？"
    plain = index.search(question, 3)
    assert index.lifter is not None
    assert not index.gate.lifts
    lifting = index.regated(replace(index.gate, lift=Standard(0.05, 0.1), lift_weight=0.3))
    hits = lifting.search(question, 3)
    value = index.lifter(question, plain[0])
    assert value is not None
    assert [h.chunk for h in hits] == [h.chunk for h in plain], "the order is untouched"
    assert hits[0].score == pytest.approx(plain[0].score + 0.3 * (value - 0.05) / 0.1)
    assert hits[0].score != pytest.approx(plain[0].score)
    assert [h.score for h in hits[1:]] == [h.score for h in plain[1:]]


def test_without_an_embedder_there_is_no_lift() -> None:
    index = index_documents(KNOWLEDGE, embeddings=None)
    assert index.lifter is None
    lifting = Lifter(Meaning(), index._lexical.weights)
    hit = index.search("流利级单独报名多少钱？", 1)[0]
    assert hit.dense is None
    assert lifting(QUESTION, hit) is None


@pytest.mark.parametrize("lifted", [True, False])
async def test_the_refusal_decision_reads_the_lifted_score(lifted: bool) -> None:
    index = index_documents(KNOWLEDGE, embeddings=HashingEmbeddings())
    question = "流利级单独报名多少钱？"
    plain = index.search(question, 1)[0]
    assert index.lifter is not None
    value = index.lifter(question, plain)
    assert value is not None
    # the lift stands one deviation above its mean: weighed 0.3, it lifts the score by 0.3
    gate = replace(index.gate, lift=Standard(value - 0.1, 0.1), lift_weight=0.3 if lifted else 0)
    threshold = plain.score + 0.15
    model = ScriptedChatModel(replies=["流利级单独报名 4800 元[1]。"])
    pipeline = Pipeline(
        index=index.regated(gate, threshold),
        generator=Generator(model),
        cache=MemoryCache(),
        min_score=threshold,
    )

    result = await pipeline.answer(question)

    assert isinstance(result, Answer if lifted else Refusal)
    assert model.calls == (1 if lifted else 0)


def test_a_question_in_the_other_language_picks_sentences_by_its_translated_words() -> None:
    index = index_documents(KNOWLEDGE, embeddings=HashingEmbeddings())
    assert index.lifter is not None
    policy = next(d.text for d in KNOWLEDGE if d.source == "it/passwords.md")
    chosen = by_words(sentences(policy), index.lifter.weights("密码多久换一次？"), 1)
    assert chosen == [
        "Passwords must be at least 14 characters long and are changed every 180 days."
    ]


def test_a_soft_wrapped_list_item_is_one_sentence_without_its_marker() -> None:
    text = (
        "- Passwords are changed only when there is a reason to believe they are known to someone\n"
        "  else; there is no routine expiry.\n"
        "- Use a different password for every system."
    )
    assert sentences(text) == [
        "Passwords are changed only when there is a reason to believe they are known to someone"
        " else; there is no routine expiry.",
        "Use a different password for every system.",
    ]


def test_the_offline_answerer_finds_the_lifts_sentence_vectors_remembered() -> None:
    counted = Meaning()
    first = shared(counted, "test-shared-similarity")
    assert shared(Meaning(), "test-shared-similarity") is first, "one per embedder identity"
    assert shared(Meaning(), "another-embedder") is not first
    first(QUESTION, [ANSWERING])
    shared(Meaning(), "test-shared-similarity")(QUESTION, [ANSWERING])
    assert counted.embedded == [ANSWERING], "embedded once for both"
    index = index_documents(KNOWLEDGE, embeddings=E5Embeddings())
    assert index.lifter is not None
    assert similarity_from_settings(Settings(embeddings="e5")) is index.lifter.similarity
