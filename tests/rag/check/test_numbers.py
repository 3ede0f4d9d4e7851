"""Quantities: which spans are amounts, and the same amount written two ways compares equal."""

from __future__ import annotations

import pytest

from rag.check.numbers import chinese_value, key, quantities
from rag.check.source_numbers import number_values


def values(text: str) -> list[set[float]]:
    return [set(q.values) for q in quantities(text)]


@pytest.mark.parametrize(
    ("numeral", "value"),
    [
        ("四", 4),
        ("两", 2),
        ("十", 10),
        ("十二", 12),
        ("二十四", 24),
        ("一百零五", 105),
        ("两千五", 2500),
        ("一千二百", 1200),
        ("三万五", 35000),
        ("二〇二四", 2024),
        ("三点五", 3.5),
    ],
)
def test_chinese_numerals_are_read_as_their_value(numeral: str, value: float) -> None:
    assert chinese_value(numeral) == value


def test_a_numeral_that_starts_with_a_unit_is_not_read() -> None:
    assert chinese_value("万一") is None
    assert chinese_value("百") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("口语课一共六级", [{6}]),
        ("每级十二课时", [{12}]),
        ("两周内补课", [{2}]),
        ("共分四个级别", [{4}]),
        ("一个月内补考", [{1}]),
        ("收取百分之五的手续费", [{5, 0.05}]),
        ("收取 5% 的手续费", [{5, 0.05}]),
        ("课程费 4,800 元", [{4800}]),
        ("课程费 ¥4800", [{4800}]),
        ("costs $120", [{120}]),
        ("１６课时", [{16}]),
        ("3万元", [{3, 30000}]),
        ("三分之二的课时", [{key(2 / 3)}]),
    ],
)
def test_quantities_in_every_common_notation(text: str, expected: list[set[float]]) -> None:
    assert values(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "一共有几级",
        "一些学员一起上课",
        "稍等一下",
        "一般来说",
        "统一安排",
        "唯一的办法",
        "第一，先报名",
        "这是一个常见问题",
        "一次性付清",
        "十分重要",
        "万一请假",
        "三角形",
        "之一",
    ],
)
def test_words_made_with_numeral_characters_are_not_quantities(text: str) -> None:
    assert quantities(text) == []


def test_a_lone_one_after_a_pointer_word_is_no_count() -> None:
    """下一年 is "next year" and 同一级别 "the same level"; 一年 and 满一年 still count."""
    assert values("结转到下一年") == []
    assert values("同一级别内转班，每一次都要申请") == []
    assert values("工作满一年的") == [{1}]


def test_chinese_ordinals_with_a_unit_are_ranks_and_first_is_a_word() -> None:
    """ "第三条" and "第 3 级" are ranks (checked against the source's ranks); "第一时间" and
    "第一步" say "at once" and "to begin with"."""
    assert [(q.values, q.ordinal) for q in quantities("第三条规定")] == [({3.0}, True)]
    assert [q.ordinal for q in quantities("第 3 级")] == [True]
    assert quantities("第一时间通知，第一步先登记") == []


def test_english_number_words_and_months_next_to_a_day_count() -> None:
    assert values("at least two weeks ahead") == [{2}]
    assert values("expires on 31 March") == [{31}, {3}]
    assert values("one of the rules; you may ask") == []
    assert values("one day later") == [{1}]


def test_the_source_side_reads_every_numeral_but_not_list_numbering() -> None:
    source = "2. 退费申请由教务部审核，10 个工作日内退回。\n三、手续费最低五十元"
    assert number_values(source) == {10, 50}


def test_source_ranks_ground_ranks_only() -> None:
    source = "第三次起每次收取 100 元"
    assert 3 not in number_values(source)
    assert 3 in number_values(source, ordinals=True)


def test_full_width_and_thousands_separators_meet_plain_digits() -> None:
    assert number_values("４，８００") != number_values("4800")  # full-width comma is no separator
    assert number_values("4,800 元") == number_values("４８００元") == {4800}


def test_english_ranks_are_ordinals_grounded_by_list_numbering() -> None:
    ranks = quantities("Level 3 costs 4,800 yuan; the 2nd time; No. 5")
    assert [(q.text, q.ordinal) for q in ranks] == [
        ("3", True),
        ("4,800", False),
        ("2", True),
        ("5", True),
    ]
    levels = "1. 入门级\n3. 流利级：4800 元"
    assert 3 not in number_values(levels)
    assert 3 in number_values(levels, ordinals=True)


def test_a_number_word_before_a_hyphen_is_the_number() -> None:
    """ "two-week", "two-factor" say two; "twenty-one" is one number; "two-thirds" a fraction."""
    assert [q.values for q in quantities("a two-week course")] == [{2.0}]
    assert [q.values for q in quantities("twenty-one days")] == [{21.0}]
    assert quantities("two-thirds of staff") == []
    assert quantities("a one-off payment") == []
    assert number_values("Two-factor authentication is required") == {2.0}


def test_an_afternoon_hour_is_also_its_24_hour_value() -> None:
    """ "10 p.m." and "晚上 10 点" are the "22:00" a policy writes; "7 a.m." and "12 p.m." stay."""
    assert [q.values for q in quantities("between 10 p.m. and 7 a.m.")] == [{10, 22}, {7}]
    assert [q.values for q in quantities("晚上 10 点以后")] == [{10, 22}]
    assert [q.values for q in quantities("at 12 p.m.")] == [{12}]
    assert 22 in number_values("taxis from 10pm")


def test_scale_words_and_suffixes_are_the_amount_they_name() -> None:
    """ "1 million", "100k", "$5M" are what a source writes as 1,000,000, 100,000, 5000000.
    Read strictly, "1 million" is not also 1 (a stray "1" in a source would ground it)."""
    assert values("1 million subscribers") == [{1_000_000}]
    assert values("100k subscribers") == [{100_000}]
    assert values("a $5M deal") == [{5_000_000}]
    assert values("two thousand people") == [{2000}]
    assert values("5 thousand people") == [{5000}], "the scale is not read again as 1000"
    assert values("a 5MB file 100km away") == [{5}, {100}], "units, not scales"
    assert {100_000, 1_000_000} <= number_values("100k subscribers, then one million")


def test_numbers_that_point_at_a_source_are_not_amounts() -> None:
    """A model citing in words ("contexts 1 and 2", "Passage ID 3") states no amount; a count
    written after such a reference still does."""
    assert values("no one helps (contexts 1 and 2). It takes 5 days") == [{5}]
    assert values("the authors of Passage ID 3 declare") == []
    assert values("sources 1, 2 and 3 agree on 7 days") == [{7}]
    assert values("来源1、2和3都写了5天") == [{5}]
    assert values("according to source 2, 40 people came") == [{40}]
    assert values("the source 2020 report") == [{2020}], "a year is no source index"
