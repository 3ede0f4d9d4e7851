"""Follow-ups made standalone by rules: the shapes people continue with, and nothing else."""

from __future__ import annotations

import pytest

from rag.followup.rules import standalone
from rag.followup.smalltalk import is_small_talk


@pytest.mark.parametrize(
    ("previous", "message", "expected"),
    [
        ("流利级的课程费是多少？", "那商务级呢？", "商务级的课程费是多少？"),
        ("入门级的教材费是多少？", "商务级的呢？", "商务级的教材费是多少？"),
        ("工作日加班工资怎么算？", "法定节假日呢？", "法定节假日加班工资怎么算？"),
        ("病假需要什么证明？", "那事假呢？", "事假需要什么证明？"),
        ("转班怎么收费？", "那转级呢？", "转级怎么收费？"),
        ("助教有哪些职责？", "课程顾问呢？", "课程顾问有哪些职责？"),
        ("退费申请多久到账？", "还有呢？", "退费申请多久到账？"),
        ("退费手续费怎么收？", "最低多少？", "退费手续费怎么收，最低多少？"),
        (
            "流利级剩 12 课时能退多少？",
            "如果只剩 1 课时呢？",
            "流利级剩 12 课时能退多少，如果只剩 1 课时？",
        ),
    ],
)
def test_chinese_follow_ups_take_their_context_from_the_previous_question(
    previous: str, message: str, expected: str
) -> None:
    assert standalone(message, [previous]) == expected


@pytest.mark.parametrize(
    ("previous", "message", "expected"),
    [
        (
            "How many days of annual leave do I get?",
            "What about sick leave?",
            "How many days of sick leave do I get?",
        ),
        (
            "What is the hotel limit in Shanghai?",
            "And in all other cities?",
            "What is the hotel limit in all other cities?",
        ),
        (
            "Which train class can I book?",
            "What about flights?",
            "Which train class can I book — flights?",
        ),
        ("What is the daily meal allowance?", "What else?", "What is the daily meal allowance?"),
        (
            "Within how many days must I submit a claim?",
            "What if I submit it after 90 days?",
            "Within how many days must I submit a claim if I submit it after 90 days?",
        ),
        (
            "How long must a password be?",
            "Can it contain my name?",
            "How long must a password be: Can it contain my name?",
        ),
    ],
)
def test_english_follow_ups_take_their_context_from_the_previous_question(
    previous: str, message: str, expected: str
) -> None:
    assert standalone(message, [previous]) == expected


@pytest.mark.parametrize(
    ("previous", "message"),
    [
        ("一个班最多多少人？", "那分级测试要多久？"),
        ("流利级的课程费是多少？", "迟到超过30分钟怎么处理？"),
        ("教材费能退吗？", "保留学籍最长多久？"),
        ("退费的手续费是多少？", "转班的规则是怎么样的呢？"),
        ("How long must a password be?", "Is alcohol reimbursed on business trips?"),
        ("Which train class can I book?", "And how do I report a suspicious email?"),
    ],
)
def test_a_question_of_its_own_is_left_as_asked(previous: str, message: str) -> None:
    assert standalone(message, [previous]) == message


@pytest.mark.parametrize(
    ("previous", "message"),
    [
        ("爆炸了怎么办？", "what if it goes boom?"),
        ("流利级多少钱？", "And the business level?"),
        ("How much is the business level?", "那流利级呢？"),
    ],
)
def test_a_follow_up_in_another_language_is_not_spliced_into_the_last_question(
    previous: str, message: str
) -> None:
    """Rules splice words; across languages that makes a question in neither."""
    assert standalone(message, [previous]) == message


def test_only_the_last_turn_is_context_and_a_first_question_is_its_own() -> None:
    assert standalone("那商务级呢？", []) == "那商务级呢？"
    history = ["退费怎么算？", "流利级的课程费是多少？"]
    assert standalone("那商务级呢？", history) == "商务级的课程费是多少？"


@pytest.mark.parametrize(
    "text",
    [
        "谢谢！",
        "好的，谢谢",
        "收到👍",
        "ok",
        "Got it, thanks!",
        ":+1:",
        "👍",
        "你好",
        "您好！",
        "在吗？",
        "hello",
        "Hi there 👋",
        "hey!",
        "good morning",
    ],
)
def test_greetings_thanks_ok_and_emoji_are_small_talk(text: str) -> None:
    assert is_small_talk(text)


@pytest.mark.parametrize(
    "text",
    [
        "那商务级呢？",
        "谢谢，那商务级呢？",
        "thanks, what about flights?",
        "ok so what is the limit?",
        "city?",
        "你好，年假有几天？",
        "hi, how many days of leave do I get?",
        "history of hiking",
    ],
)
def test_anything_asking_something_is_not_small_talk(text: str) -> None:
    assert not is_small_talk(text)


@pytest.mark.parametrize(
    ("previous", "message", "expected"),
    [
        (
            "limit-count 插件按什么计数？",
            "那超过以后返回什么状态码？",
            "limit-count 那超过以后返回什么状态码？",
        ),
        (
            "key-auth 的 header 叫什么？",
            "它能放在 query 里吗？",
            "key-auth header 它能放在 query 里吗？",
        ),
        ("Grafana 的面板怎么导入？", "默认刷新间隔是多少", "Grafana 默认刷新间隔是多少"),
    ],
)
def test_a_chinese_follow_up_is_asked_about_what_the_last_turn_named_in_latin_letters(
    previous: str, message: str, expected: str
) -> None:
    assert standalone(message, [previous]) == expected


def test_a_chinese_question_naming_its_own_thing_keeps_to_it() -> None:
    # It names a thing of its own and does not open as a continuation: a new question.
    message = "prometheus 插件的指标在哪个端口？"
    assert standalone(message, ["limit-count 插件按什么计数？"]) == message


def test_a_longer_english_follow_up_with_a_pronoun_is_read_with_the_last_turn() -> None:
    previous = "how do I enroll in the commuter benefit?"
    message = "does it carry over into the next month if I don't spend all of it?"
    assert standalone(message, [previous]) == f"how do I enroll in the commuter benefit: {message}"


def test_and_if_is_a_condition_on_the_last_turn() -> None:
    previous = "how many days of annual leave do I get?"
    assert (
        standalone("and if I work part time?", [previous])
        == "how many days of annual leave do I get if I work part time?"
    )
