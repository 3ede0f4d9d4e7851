"""A right sum after parts the sentence states otherwise, a difference that is not one: each
number is in the source and any formula is right, yet the sentence contradicts itself."""

from __future__ import annotations

import pytest

from rag.check.citations import check
from tests.rag.factories import make_hit

PLACEMENT = "新学员入学前参加一次免费的分级测试（笔试 20 分钟、口试 10 分钟）。"
FEES = "流利级课程费 4800 元。每级教材费 280 元，教材发放后不退。"
FEES_EN = "The Fluent level costs 4800 CNY. Books cost 280 CNY per level."


def arithmetic(answer: str, source: str) -> list[str]:
    problems = check(answer, [make_hit(source)]).problems
    return [problem.message for problem in problems if problem.kind == "wrong_arithmetic"]


COURSE_FEES = (
    "| 级别 | 课程费 | 教材费 |\n| --- | --- | --- |\n"
    "| 流利级 | 4800 元 | 280 元 |\n| 商务级 | 5600 元 | 280 元 |"
)
HOTEL = "Hotels: 450 CNY per night in provincial capitals, 350 CNY in all other cities."
COURSE_FEES_EN = "Fluent costs 4800 CNY and Business 5600 CNY; books are 280 CNY for every level."


@pytest.mark.parametrize(
    ("answer", "source", "said"),
    [
        # parts that don't add up to the written sum
        (
            "分级测试笔试 10 分钟、口试 10 分钟，共 20 + 10 = 30 分钟[1]。",
            PLACEMENT,
            "分项对不上合计：这句写的 10 分钟 + 10 分钟 得 20，算式却是 20 + 10 = 30 分钟",
        ),
        (
            "流利级课程费 280 元，教材费 280 元，合计 4800 + 280 = 5080 元[1]。",
            FEES,
            "这句写的 280 元 + 280 元 得 560",
        ),
        (
            "The course is 4800 CNY and the books 380 CNY, so 4800 + 280 = 5080 CNY in all [1].",
            FEES_EN,
            "gives 4800 + 380, which make 5180, but its formula is 4800 + 280 = 5080 CNY",
        ),
        # a rate and a count, multiplied with another rate
        (
            "The limit is 350 CNY per night, so for 2 nights that is 2 × 450 = 900 CNY [1].",
            HOTEL,
            "gives 350 × 2, which make 700, but its formula is 2 × 450 = 900 CNY",
        ),
        (
            "每课时 300 元，共 16 课时，合计 250 × 16 = 4000 元[1]。",
            "每课时 300 元，每级 16 课时，另有优惠价每课时 250 元。",
            "分项对不上合计：这句写的 300 元 × 16 课时 得 4800，算式却是 250 × 16 = 4000 元",
        ),
        # a difference stated without a formula that is not the difference
        (
            "商务级课程费 5600 元，比流利级的 4800 元贵 280 元[1]。",
            COURSE_FEES,
            "差额对不上：这句说 5600 元 和 4800 元 相差 280 元，实际相差 800",
        ),
        (
            "Business costs 5600 CNY, 280 CNY more than the 4800 CNY of Fluent [1].",
            COURSE_FEES_EN,
            "the sentence puts 280 between 5600 and 4800, which differ by 800",
        ),
    ],
)
def test_amounts_the_sentence_states_against_its_own_arithmetic_are_named(
    answer: str, source: str, said: str
) -> None:
    [message] = arithmetic(answer, source)
    assert said in message


@pytest.mark.parametrize(
    ("answer", "source"),
    [
        # the parts as the source gives them
        ("分级测试笔试 20 分钟、口试 10 分钟，共 20 + 10 = 30 分钟[1]。", PLACEMENT),
        ("The course is 4800 CNY and the books 280 CNY, so 4800 + 280 = 5080 CNY [1].", FEES_EN),
        # more amounts in the unit than terms: not read as the sum's parts
        ("课程费 4800 元，教材费 280 元，押金 100 元，其中 4800 + 280 = 5080 元不退[1]。", FEES),
        # parts in another unit than the sum's
        ("分级测试两项，共 20 + 10 = 30 分钟[1]。", PLACEMENT),
        # not a sum: a refund over lessons after a fee
        ("实付 4800 元，剩余 12 课时，可退 4800 × 12 ÷ 16 = 3600 元[1]。", FEES),
        # the right difference
        ("商务级课程费 5600 元，比流利级的 4800 元贵 800 元[1]。", COURSE_FEES),
        ("Business costs 5600 CNY, 800 CNY more than the 4800 CNY of Fluent [1].", COURSE_FEES_EN),
        ("The limit is 450 CNY per night, so for 2 nights that is 2 × 450 = 900 CNY [1].", HOTEL),
        (
            "每课时 300 元，共 16 课时，合计 300 × 16 = 4800 元[1]。",
            "每课时 300 元，每级 16 课时。",
        ),
        # a difference written out is not a sum of the amounts before it
        ("商务级 5600 元，流利级 4800 元，商务级贵 5600 − 4800 = 800 元[1]。", COURSE_FEES),
        # the numbers of the sentence's earlier formulas are not parts it states
        (
            "可退 4800 × 12 ÷ 16 = 3600 元，手续费 3600 × 5% = 180 元，"
            "两项共 3600 + 180 = 3780 元[1]。",
            "流利级 4800 元，共 16 课时。手续费为退款金额的 5%。",
        ),
        # a sum's parts are stated outside the sentence's other formulas
        ("每课时 4800 元 ÷ 16 = 300 元，加教材费共 300 + 280 = 580 元[1]。", FEES),
        # the formula is the arithmetic rule's to check
        ("商务级比流利级贵 800 元，加教材费 280 元共 5600 + 280 = 5880 元[1]。", COURSE_FEES),
        (
            "商务级比流利级贵 800 元，加教材费 280 元共 5600 + 280 = 5880 元[1]。",
            "商务级 5600 元，比流利级贵 800 元；教材费 280 元。",
        ),
        ("商务级 5600 元，比流利级贵 5600 − 4800 = 800 元[1]。", COURSE_FEES),
        # a bound is no difference ("至少 10 天")
        (
            "年假 15 天，比病假的 12 天多，须至少 10 天前申请[1]。",
            "年假 15 天，病假 12 天，须提前 10 天申请。",
        ),
        (
            "Trips of 5 days or more need approval, more than a 3 days visit; 10 days at most [1].",
            "Trips of 5 days or more need approval; visits take 3 days; 10 days is the most.",
        ),
        # three amounts, none of them stated as the difference
        ("商务级比流利级贵：商务级 5600 元，流利级 4800 元，教材 280 元[1]。", COURSE_FEES),
    ],
)
def test_sums_and_differences_that_agree_or_are_not_stated_are_not_blamed(
    answer: str, source: str
) -> None:
    assert arithmetic(answer, source) == []
