from __future__ import annotations

import pytest

from rag.language import detect_language
from rag.questions import normalize_question
from rag.reading import features
from tests.rag.mixed_questions import mixed_questions


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


def test_a_set_of_chinese_questions_quoting_english_errors_is_all_chinese() -> None:
    questions = mixed_questions()
    assert len(set(questions)) == 100
    english = [question for question in questions if detect_language(question) != "zh"]
    assert english == []


@pytest.mark.parametrize(
    "question",
    [
        "traffic-split 里 weighted_upstreams 直接内联 upstream 的话健康检查 checks 能配吗",
        "想看 core.log.info 打出来的东西要改哪个配置 config-default.yaml",
        "maxRetryCount 和 HttpClientFactory 怎么配",
        "装在 /root/apisix/conf 下面启动报 `module 'resty.worker.events' not found` 是咋回事",
    ],
)
def test_identifiers_and_paths_are_not_prose(question: str) -> None:
    assert detect_language(question) == "zh"


@pytest.mark.parametrize(
    "question",
    [
        'Why do I get "无法连接到服务器，请检查网络设置" when I log in?',
        "What does 「退费手续费」 mean in the refund policy?",
        "How do I fix `failed to fetch data from etcd` when the 网关 restarts?",
        "Why is my refund request not found in the 退费 system?",
        "Error codes: where are they documented?",
        "I don't know what the 'limit-count' plugin returns when it's over the limit",
    ],
)
def test_an_english_question_quoting_chinese_or_errors_stays_english(question: str) -> None:
    assert detect_language(question) == "en"


def test_a_text_that_is_all_quotes_is_judged_whole() -> None:
    assert detect_language('"退费怎么算" "refund"') == "zh"
    assert detect_language('"How is the refund calculated" "退费"') == "en"


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
