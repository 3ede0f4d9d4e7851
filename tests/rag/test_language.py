from __future__ import annotations

import pytest

from rag.language import detect_language


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
