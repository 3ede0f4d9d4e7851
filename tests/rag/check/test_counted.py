"""A number that counts the list its own sentence gives is the answer's arithmetic, not a
claim the source must repeat; a miscount, or a number that only sits near a list, still is."""

from __future__ import annotations

import pytest

from rag.check.citations import check
from rag.check.counted import counts_own_list
from rag.check.numbers import quantities
from tests.rag.factories import make_hit

METHODS_EN = "Apply online, by email, or at the front desk. Keep the confirmation."
METHODS_ZH = "退费办法：全额退费、部分退费、不予退费，按开课情况而定。"


def numbers_flagged(answer: str, source: str) -> list[str]:
    problems = check(answer, [make_hit(source)]).problems
    return [problem.message for problem in problems if problem.kind == "ungrounded_number"]


@pytest.mark.parametrize(
    "answer",
    [
        "There are three ways to apply: online, by email, or at the front desk [1].",
        "You can apply in 3 ways: online, by email, or at the front desk [1].",
        "Online, email and the front desk are the three ways to apply [1].",
    ],
)
def test_the_count_of_the_sentences_own_list_is_grounded(answer: str) -> None:
    assert numbers_flagged(answer, METHODS_EN) == []


@pytest.mark.parametrize(
    "answer",
    [
        "There are four ways to apply: online, by email, or at the front desk [1].",
        "Online, email and the front desk are the two ways to apply [1].",
    ],
)
def test_a_miscount_is_still_flagged(answer: str) -> None:
    assert numbers_flagged(answer, METHODS_EN) != []


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        ("退费分为三类：全额退费、部分退费和不予退费[1]。", False),
        ("全额退费、部分退费和不予退费三种情况都可能出现[1]。", False),
        ("退费分为四类：全额退费、部分退费和不予退费[1]。", True),
    ],
)
def test_chinese_counts_of_a_list_before_or_after_them(answer: str, flagged: bool) -> None:
    assert bool(numbers_flagged(answer, METHODS_ZH)) is flagged


@pytest.mark.parametrize(
    "sentence",
    [
        # the count names something else than the list next to it
        "The movie follows two women, Madison and Michael Roland.",
        "The course is a mystery and thriller about two women.",
        # a number in a name at the end of a list
        "He played World of Warcraft, Star Wars: The Old Republic and Guild Wars 2.",
        # amounts of time, money and shares count no list
        "Refunds take 2 weeks: apply and wait.",
        "The share fell to 3 percent: men, women and children.",
        "报名费 2 元：报名和上课。",
        # the colon of a clock time opens no list
        "Taxis are allowed between 22:00 and 3:00, with equipment, or without transport.",
    ],
)
def test_a_number_that_only_sits_near_a_list_counts_nothing(sentence: str) -> None:
    assert not any(counts_own_list(q, sentence) for q in quantities(sentence))


@pytest.mark.parametrize(
    ("sentence", "counted"),
    [
        # a joint inside an item of a comma list is not a list's joint
        (
            "Taxis are allowed in three cases: between 22:00 and 07:00, with equipment, or "
            "without transport.",
            True,
        ),
        (
            "Taxis are allowed in three cases: between 22:00 and 07:00, with equipment or "
            "without transport.",
            True,
        ),
        # a range is one item
        ("Taxis are allowed in two cases: between 22:00 and 07:00.", False),
        ("开放时间分两段：在周一和周五之间。", False),
        ("报名有两种方式：在线报名和现场报名。", True),
    ],
)
def test_items_are_cut_where_the_list_is_joined(sentence: str, counted: bool) -> None:
    assert any(counts_own_list(q, sentence) for q in quantities(sentence)) is counted


def test_a_bracketed_aside_inside_an_item_does_not_add_items() -> None:
    sentence = "Granite has two main minerals: feldspar (alkali and plagioclase) and quartz."
    assert [counts_own_list(q, sentence) for q in quantities(sentence)] == [True]


@pytest.mark.parametrize(
    ("answer", "source"),
    [
        (
            "口语课分三个级别：入门级、进阶级、流利级[1]。",
            "口语课程共设四个级别，从低到高依次为：入门级、进阶级、流利级、商务级。",
        ),
        (
            "Granite has three main minerals: quartz, feldspar and mica [1].",
            "Granite has four main minerals: quartz, feldspar, mica and amphiboles.",
        ),
    ],
)
def test_a_list_the_source_counts_otherwise_is_a_short_list_not_a_count(
    answer: str, source: str
) -> None:
    """The model listed three of the four levels and counted its list: the source's own count
    decides, and says four."""
    assert numbers_flagged(answer, source) != []


REFUND_CASES = "退费办法：开课前全额退费；开课后按剩余课时退费；结课后不予退费。"


@pytest.mark.parametrize(
    ("answer", "source", "flagged"),
    [
        # a lead-in's count of the lines under it
        (
            "退费分三种情况[1]：\n1. 开课前全额退费\n2. 开课后按剩余课时退费\n3. 结课后不予退费",
            REFUND_CASES,
            False,
        ),
        (
            "There are three ways to apply [1]:\n- online\n- by email\n- at the front desk",
            METHODS_EN,
            False,
        ),
        # a table's header row is no item
        (
            "There are three ways to apply [1]:\n\n| Way | Note |\n|---|---|\n"
            "| online | portal |\n| email | inbox |\n| front desk | office |",
            METHODS_EN,
            False,
        ),
        # a miscount of the lines under it
        (
            "退费分四种情况[1]：\n1. 开课前全额退费\n2. 开课后按剩余课时退费\n3. 结课后不予退费",
            REFUND_CASES,
            True,
        ),
        (
            "There are two ways to apply [1]:\n- online\n- by email\n- at the front desk",
            METHODS_EN,
            True,
        ),
    ],
)
def test_a_lead_in_counts_the_items_under_it(answer: str, source: str, flagged: bool) -> None:
    assert bool(numbers_flagged(answer, source)) is flagged
