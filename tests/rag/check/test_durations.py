"""Amounts grounded in another form: in another unit, or a difference without its formula."""

from __future__ import annotations

import pytest

from rag.check.citations import check
from rag.check.durations import durations, unit_of
from rag.check.numbers import quantities
from tests.rag.factories import make_hit


@pytest.mark.parametrize(
    ("answer", "source"),
    [
        ("The warranty lasts 1 year [1].", "The warranty lasts 12 months from delivery."),
        ("It comes with a 12-month warranty [1].", "The warranty lasts one year."),
        ("Claims must be made within two weeks [1].", "Submit claims within 14 days."),
        ("The lesson lasts 1 hour [1].", "Each lesson lasts 60 minutes."),
        ("保修期为一年[1]。", "保修期为 12 个月。"),
        ("两周内提交申请[1]。", "须在 14 天内提交申请。"),
        ("一天内回复[1]。", "学员咨询 24 小时内回复。"),
    ],
)
def test_the_same_length_in_another_unit_is_grounded(answer: str, source: str) -> None:
    assert check(answer, [make_hit(source)], question="多久？").problems == ()


@pytest.mark.parametrize(
    ("answer", "source"),
    [
        ("Claims must be made within three weeks [1].", "Submit claims within 14 days."),
        ("Claims must be made within one month [1].", "Submit claims within 30 days."),
        ("The trial lasts 2 years [1].", "The trial lasts 12 months."),
        ("须在一个月内提交[1]。", "须在 30 天内提交。"),
    ],
)
def test_another_length_or_an_inexact_conversion_is_still_a_problem(
    answer: str, source: str
) -> None:
    """A month is not 30 days: only exact conversions ground a number."""
    kinds = [p.kind for p in check(answer, [make_hit(source)], question="多久？").problems]
    assert kinds == ["ungrounded_number"]


def test_dates_are_not_durations() -> None:
    """ "3 月" is March and "2024 年" a calendar year: neither counts months or years."""
    text = "2024 年 3 月起执行，保修 2 年。"
    assert [unit_of(q, text) for q in quantities(text)] == [None, None, "year"]
    assert durations("自 2024 年 3 月 1 日起") == frozenset()


def test_a_difference_stated_without_its_formula_is_grounded() -> None:
    """ "比流利级的 4800 元贵 800 元": 800 = 5600 − 4800, both amounts grounded, in a sentence
    that compares them."""
    source = "| 流利级 | 4800 元 |\n| 商务级 | 5600 元 |"
    answer = "商务级课程费 5600 元，比流利级的 4800 元贵 800 元[1]。"
    assert check(answer, [make_hit(source)], question="差多少？").problems == ()
    wrong = "商务级课程费 5600 元，比流利级的 4800 元贵 900 元[1]。"
    kinds = [p.kind for p in check(wrong, [make_hit(source)], question="差多少？").problems]
    assert kinds == ["ungrounded_number"]


def test_a_sum_of_amounts_is_not_read_into_a_sentence_that_does_not_add_them() -> None:
    source = "流利级 4800 元，商务级 5600 元。"
    answer = "流利级 4800 元，商务级 5600 元，学员人数 800 人[1]。"
    kinds = [p.kind for p in check(answer, [make_hit(source)], question="多少？").problems]
    assert kinds == ["ungrounded_number"]


def test_amounts_of_other_units_add_up_to_nothing() -> None:
    """ "10 月 … 5~6 月 … 共 11 年" and "60 节 … 三部分 … 占比约 63%" read as sums would ground
    invented numbers: only amounts counted in the derived number's own unit are added."""
    source = "花期从10月起至翌年5~6月。飞机以60节的速度冲出跑道，机身分裂成三部分。"
    for answer in (
        "花期从10月起至翌年5~6月，前后共11年[1]。",
        "飞机以60节的速度冲出跑道，机身分裂成三部分，占比约63%[1]。",
    ):
        kinds = [p.kind for p in check(answer, [make_hit(source)], question="?").problems]
        assert kinds == ["ungrounded_number"], answer


@pytest.mark.parametrize(
    "text",
    ["签署 30 周年纪念活动", "两周岁的孩子", "学生读三年级", "八十年代的歌", "连续三个季度增长"],
)
def test_a_unit_that_starts_like_a_unit_of_time_is_read_whole(text: str) -> None:
    """ "30 周年" is an anniversary, not 30 weeks; "三年级" a school year, not three years. The
    card names the number as written ("30 周年")."""
    [quantity] = quantities(text)
    assert unit_of(quantity, text) is None
    assert durations(text) == frozenset()


def test_hours_written_as_zhongtou_are_hours() -> None:
    """ "两个钟头" is two hours, and converts like "2 小时"."""
    assert durations("会议开两个钟头") == frozenset({(2.0, "hour")})
    report = check("会议开 120 分钟[1]。", [make_hit("会议开两个钟头。")], question="多久？")
    assert report.problems == ()
