"""Two current documents giving different values for what is asked; and what is not that."""

from __future__ import annotations

from rag.check.conflicts import find_conflict
from rag.chunks import Chunk
from rag.results import Hit


def hit(source: str, text: str, score: float = 1.0) -> Hit:
    return Hit(Chunk(source=source, text=text, n=0, title=source), score=score)


def test_two_amounts_in_one_unit_for_the_same_thing_conflict() -> None:
    hits = [
        hit("a.md", "一线城市住宿费每晚上限 600 元，超出部分自理。"),
        hit("b.md", "一线城市住宿费每晚上限 500 元。"),
    ]
    conflict = find_conflict("一线城市住宿每晚上限多少？", hits, min_score=0.5)
    assert conflict is not None
    assert conflict.refs == (1, 2)
    assert (conflict.first.value, conflict.second.value) == ("600元", "500元")


def test_the_same_value_in_two_documents_is_no_conflict() -> None:
    hits = [
        hit("a.md", "Claims must be submitted within 30 days of the expense date."),
        hit("b.md", "Expense claims must be submitted within thirty days of the expense date."),
    ]
    assert find_conflict("How long do I have to submit a claim?", hits, min_score=0.5) is None


def test_different_things_that_both_count_days_are_no_conflict() -> None:
    hits = [
        hit("annual.md", "International staff receive 20 working days of annual leave a year."),
        hit("sick.md", "International staff receive 10 working days of paid sick leave a year."),
    ]
    question = "How many days of annual leave do international staff get?"
    assert find_conflict(question, hits, min_score=0.5) is None


def test_two_passages_of_one_document_are_no_conflict() -> None:
    hits = [
        hit("rooms.md", "会议室最多可提前 14 天预订。"),
        hit("rooms.md", "培训室最多可提前 30 天预订。"),
    ]
    assert find_conflict("会议室最多可以提前几天预订？", hits, min_score=0.5) is None


def test_a_passage_below_the_gate_takes_no_part() -> None:
    hits = [
        hit("a.md", "会议室最多可提前 14 天预订。"),
        hit("b.md", "会议室最多可提前 7 天预订。", 0.1),
    ]
    assert find_conflict("会议室最多可以提前几天预订？", hits, min_score=0.5) is None


def test_two_approvers_conflict_when_the_question_asks_who_approves() -> None:
    hits = [
        hit("travel.md", "差旅费报销由部门负责人审批。"),
        hit("table.md", "差旅费报销由财务经理审批，超过 20000 元另须财务总监签批。"),
    ]
    conflict = find_conflict("差旅费报销由谁审批？", hits, min_score=0.5)
    assert conflict is not None
    assert {conflict.first.value, conflict.second.value} == {"部门负责人", "财务经理"}
    en = [
        hit("policy.md", "Claims are approved by your line manager before Finance pays them."),
        hit("faq.md", "Claims are approved by the Finance Director before they are paid."),
    ]
    found = find_conflict("Who approves expense claims?", en, min_score=0.5)
    assert found is not None
    assert {found.first.value, found.second.value} == {"line manager", "Finance Director"}


def test_a_worked_example_is_not_a_rule_that_conflicts() -> None:
    price = hit("courses.md", "单独报读流利级的课程费为 5200 元。")
    example = Hit(
        Chunk(
            source="refund.md",
            text="学员单独报读流利级，实付课程费 4800 元。",
            n=0,
            heading=("三、退费计算口径", "计算示例一"),
        ),
        score=1.0,
    )
    said_for_example = hit("faq.md", "例如单独报读流利级的课程费为 4800 元。")
    question = "流利级的课程费是多少？"
    assert find_conflict(question, [price, example], min_score=0.5) is None
    assert find_conflict(question, [price, said_for_example], min_score=0.5) is None
    assert (
        find_conflict(
            question, [price, hit("b.md", "单独报读流利级的课程费为 4800 元。")], min_score=0.5
        )
        is not None
    )
