from __future__ import annotations

import pytest

from rag.language import detect_language
from rag.questions import normalize_question
from rag.reading import features


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("流利级退费怎么算？", "zh"),
        ("refund 怎么算", "zh"),
        ("VIP 会员的 refund policy 是什么", "zh"),
        ("4800元", "zh"),
        ("How is the refund calculated?", "en"),
        ("What does 退费 mean for new students?", "en"),
        ("", "en"),
        ("???", "en"),
    ],
)
def test_language_follows_the_share_of_ideographs(text: str, language: str) -> None:
    assert detect_language(text) == language


# One CJK set: language, search features and question normalisation read the same characters.
@pytest.mark.parametrize(
    "char",
    ["一", "\u3400", "\U00020000", "\U00030000", "\U0003134a"],
    ids=["basic", "ext-a", "ext-b", "ext-g", "ext-h"],
)
def test_an_ideograph_is_one_to_every_reader(char: str) -> None:
    assert detect_language(char * 2) == "zh"
    assert features(char * 2) == [char, char, char * 2]  # characters and their bigram
    assert normalize_question(f"{char} {char}") == char * 2  # no space between CJK


@pytest.mark.parametrize("char", ["か", "한"])
def test_kana_and_hangul_are_cjk_but_not_ideographs(char: str) -> None:
    assert detect_language(char * 2) == "en"
    assert features(char * 2) == [char, char, char * 2]
    assert normalize_question(f"{char} {char}") == char * 2
