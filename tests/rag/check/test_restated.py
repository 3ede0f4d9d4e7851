"""A number taken from another sentence of the cited passage is flagged when the passage's own
statement of the sentence counts the same thing with another number; faithful numbers, and
numbers the passage's statement doesn't count, pass."""

from __future__ import annotations

import pytest

from rag.check.citations import check
from rag.check.numbers import quantities
from rag.check.units import day_kind
from tests.rag.factories import make_hit

TRANSFER = (
    "每个级别最多可免费转班两次，从第三次起每次收取 100 元服务费。"
    "转班申请需在目标班级下一次上课前至少 3 个工作日提交。"
)
LEAVE = (
    "Submit requests in the HR portal at least 10 working days in advance for leave of three "
    "days or more, and at least 2 working days in advance for shorter leave. Your line manager "
    "approves or declines within 3 working days."
)
FEES = "单独报读流利级的课程费为 4800 元。每个级别另收教材费 280 元，教材发放后不予退还。"


def problems(answer: str, source: str, question: str = "?") -> list[tuple[str, str]]:
    report = check(answer, [make_hit(source)], question=question)
    return [(p.kind, p.message) for p in report.problems]


def test_a_count_from_another_sentence_of_the_passage_is_misattributed() -> None:
    [(kind, message)] = problems("每个级别最多可免费转班三次[1]。", TRANSFER)
    assert kind == "misattributed_number"
    assert message == "回答写「三次」，所引资料 [1] 说同一件事的地方写的是「两次」"
    [(kind, message)] = problems("Your line manager approves within 2 working days [1].", LEAVE)
    assert kind == "misattributed_number"
    assert message == (
        "the answer says “2 working days”, where [1] says the same thing with “3 working days”"
    )


@pytest.mark.parametrize(
    ("answer", "source"),
    [
        ("每个级别最多可免费转班两次[1]。", TRANSFER),
        ("Your line manager approves or declines within 3 working days [1].", LEAVE),
        # two claims in one sentence: the best line restates one of them
        ("单独报读流利级的课程费为 4800 元[1]，另加教材费 280 元[1]。", FEES),
        # the line's other number is said too ("10 … and 2 working days")
        ("Ask 10 working days ahead for long leave and 2 working days ahead otherwise [1].", LEAVE),
    ],
)
def test_a_number_the_passage_gives_for_the_same_thing_passes(answer: str, source: str) -> None:
    assert problems(answer, source) == []


def test_a_number_from_the_question_or_the_answers_arithmetic_is_not_the_passages() -> None:
    """ "还剩 3 次" comes from the asker; the line's "两次" says what the rule allows."""
    assert problems("你还剩 3 次，每个级别最多可免费转班两次[1]。", TRANSFER, "我还剩 3 次") == []
    derived = "商务级 5600 元，比流利级的 4800 元贵 800 元[1]。"
    assert problems(derived, "| 流利级 | 4800 元 |\n| 商务级 | 5600 元 |\n教材费 280 元。") == []


def test_the_same_number_of_another_unit_of_time_is_misattributed() -> None:
    source = "Laptops lock automatically after 5 minutes without use."
    [(kind, message)] = problems(
        "Laptops lock automatically after 5 hours without use [1].", source
    )
    assert kind == "misattributed_number"
    assert message == "the answer says “5 hours”, where [1] says the same thing with “5 minutes”"
    [(kind, message)] = problems("电脑闲置 5 小时后自动锁屏[1]。", "电脑闲置 5 分钟后自动锁屏。")
    assert message == "回答写「5小时」，所引资料 [1] 说同一件事的地方写的是「5分钟」"
    assert problems("电脑闲置五分钟后自动锁屏[1]。", "电脑闲置 5 分钟后自动锁屏。") == []


def test_a_rank_from_another_sentence_is_set_against_the_ranks_not_the_counts() -> None:
    """ "第二次起收费" where the line says "第三次起": 2 is in the passage ("两次"), as a count."""
    [(kind, message)] = problems(
        "每个级别可免费转班两次，第二次起每次收取 100 元服务费[1]。", TRANSFER
    )
    assert kind == "misattributed_number"
    assert message == "回答写「第二次」，所引资料 [1] 说同一件事的地方写的是「第三次」"
    assert problems("每个级别可免费转班两次，第三次起每次收取 100 元服务费[1]。", TRANSFER) == []


def test_the_same_number_of_another_kind_of_day_is_misattributed() -> None:
    """Working days and calendar days are different deadlines; plain "days" / "天" say neither."""
    [(kind, message)] = problems(
        "转班申请需在目标班级下一次上课前至少 3 个自然日提交[1]。", TRANSFER
    )
    assert kind == "misattributed_number"
    assert message == "回答写「3个自然日」，所引资料 [1] 说同一件事的地方写的是「3个工作日」"
    refunds = "Refunds are paid within 10 business days of approval."
    [(kind, message)] = problems(
        "Refunds are paid within 10 calendar days of approval [1].", refunds
    )
    assert message == (
        "the answer says “10 calendar days”, where [1] says the same thing with “10 business days”"
    )
    assert problems("Refunds are paid within 10 working days of approval [1].", refunds) == []
    assert problems("Refunds are paid within 10 days of approval [1].", refunds) == []
    assert problems("转班申请需在目标班级下一次上课前至少 3 天提交[1]。", TRANSFER) == []


def test_a_kind_of_day_is_read_only_where_the_number_counts_days() -> None:
    """A bare number ("编号 2024") does not count the working days written after it."""
    text = "编号 2024 的申请须在 5 个工作日内提交"
    assert [day_kind(q, text) for q in quantities(text)] == [None, "working"]
