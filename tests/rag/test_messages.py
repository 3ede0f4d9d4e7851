from __future__ import annotations

import pytest

from rag.messages import (
    MODEL_FAILURE,
    REFUSAL,
    is_refusal_text,
    model_failure_text,
    refusal_text,
)


def test_fixed_texts_exist_in_both_languages_without_softening_words() -> None:
    for texts in (REFUSAL, MODEL_FAILURE):
        assert set(texts) == {"zh", "en"}
    assert refusal_text("zh") == "这件事资料里没写，我不能替你编，请转人工。"
    assert model_failure_text("en") == "Something went wrong, please try again in a moment."
    for word in ("大概", "可能", "也许", "maybe", "probably", "might"):
        assert word not in refusal_text("zh") + refusal_text("en").lower()


@pytest.mark.parametrize(
    "reply",
    [
        "这件事资料里没写，我不能替你编，请转人工。",
        "这件事资料里没写,我不能替你编,请转人工",
        "  这件事 资料里没写，我不能替你编，请转人工。[1]  ",
        "回答：“这件事资料里没写，我不能替你编，请转人工。”",
        "这件事资料里没写。",
        "Our documents don't cover this, so I can't answer it — please ask a colleague.",
        "our documents don’t cover this, so I can’t answer it - please ask a colleague",
        "My answer is: \"Our documents don't cover this, so I can't answer it — please ask a "
        'colleague." [2]',
    ],
)
def test_the_models_version_of_the_refusal_sentence_is_recognised(reply: str) -> None:
    assert is_refusal_text(reply)


@pytest.mark.parametrize(
    "reply",
    [
        "退费需要转人工审核，审核通过后 7 个工作日内到账[1]。",
        "人工",
        "",
        "流利级原价 4800 元，共 16 课时[1]。另外，会员转让的事这件事资料里没写，"
        "我不能替你编，请转人工，但退费按剩余课时计算[2]。",
        "Our documents don't cover this for contractors, but employees get 20 days of leave "
        "per year [1].",
    ],
)
def test_answers_that_merely_mention_a_human_are_not_refusals(reply: str) -> None:
    assert not is_refusal_text(reply)
