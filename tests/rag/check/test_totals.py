"""A right sum after parts the sentence states otherwise: each number is in the source and
the formula is right, yet the sentence gave one part another part's amount."""

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


@pytest.mark.parametrize(
    ("answer", "source", "said"),
    [
        (
            "分级测试笔试 10 分钟、口试 10 分钟，共 20 + 10 = 30 分钟[1]。",
            PLACEMENT,
            "分项加起来对不上合计：这句写的 10 分钟 + 10 分钟 共 20，算式却是 20 + 10 = 30 分钟",
        ),
        (
            "流利级课程费 280 元，教材费 280 元，合计 4800 + 280 = 5080 元[1]。",
            FEES,
            "这句写的 280 元 + 280 元 共 560",
        ),
        (
            "The course is 4800 CNY and the books 380 CNY, so 4800 + 280 = 5080 CNY in all [1].",
            FEES_EN,
            "the sentence gives 4800 + 380, which make 5180, but its sum is 4800 + 280 = 5080 CNY",
        ),
    ],
)
def test_parts_that_do_not_add_up_to_the_written_sum_are_named(
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
    ],
)
def test_a_sum_whose_parts_agree_or_are_not_stated_is_not_blamed(answer: str, source: str) -> None:
    assert arithmetic(answer, source) == []
