"""Reading a question's shape: a list, a count or a comparison of named things, else nothing."""

from __future__ import annotations

import pytest

from rag.parts import parts_of


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("一共有几类假期？", "假期"),
        ("公司有哪些补贴？", "公司补贴"),
        ("What kinds of leave are there?", "leave ?"),
        ("How many kinds of leave do we have?", "leave do we have?"),
    ],
)
def test_lists_and_counts_are_searched_by_their_topic(question: str, topic: str) -> None:
    parts = parts_of(question)
    assert parts is not None
    assert parts.shape in ("list", "count")
    assert parts.topic == topic
    assert parts.things == ()


def test_a_count_is_told_from_a_list() -> None:
    assert [parts_of(q).shape for q in ("一共有几类假期？", "公司有哪些补贴？")] == [  # type: ignore[union-attr]
        "count",
        "list",
    ]
    assert parts_of("How many types of expenses are there?").shape == "count"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("question", "things", "asks"),
    [
        ("出差和加班各需要谁审批？", ("出差", "加班"), ("出差需要谁审批", "加班需要谁审批")),
        ("专业版和企业版有什么区别？", ("专业版", "企业版"), ("专业版", "企业版")),
        (
            "标准版、专业版和企业版分别最多支持多少成员？",
            ("标准版", "专业版", "企业版"),
            ("标准版最多支持多少成员", "专业版最多支持多少成员", "企业版最多支持多少成员"),
        ),
        (
            "年假和病假期间工资怎么发？",
            ("年假", "病假"),
            ("年假期间工资怎么发", "病假期间工资怎么发"),
        ),
        (
            "出差的交通和住宿各有什么标准？",
            ("交通", "住宿"),
            ("出差的交通有什么标准", "出差的住宿有什么标准"),
        ),
        (
            "What's the difference between the Pro and the Team plan?",
            ("Pro plan", "Team plan"),
            ("Pro plan", "Team plan"),
        ),
        (
            "Who approves business travel and who approves overtime?",
            ("business travel", "overtime"),
            ("Who approves business travel", "Who approves overtime"),
        ),
        (
            "How do sick leave and bereavement leave differ?",
            ("sick leave", "bereavement leave"),
            ("sick leave", "bereavement leave"),
        ),
        (
            "Compare the Free and Enterprise plans.",
            ("Free plans", "Enterprise plans"),
            ("Free plans", "Enterprise plans"),
        ),
    ],
)
def test_comparisons_name_each_thing_and_its_own_question(
    question: str, things: tuple[str, ...], asks: tuple[str, ...]
) -> None:
    parts = parts_of(question)
    assert parts is not None
    assert parts.shape == "comparison"
    assert parts.things == things
    assert parts.searches() == asks


@pytest.mark.parametrize(
    "question",
    [
        "退费怎么算？",
        "口语课一共有几级？",  # a number of levels, not of kinds
        "此鱼分布在哪些地区？",  # one fact about one fish
        "各部门的预算怎么定？",
        "中国的首都是哪里？",
        "How many days of annual leave do I get?",
        "Who is the CEO?",
        "What is the difference?",  # nothing named to compare
        "Is the Pro plan different from the Team plan?",
        # a thing too long to be a name
        "What is the difference between senate and house of representatives of the usa congress",
    ],
)
def test_ordinary_questions_have_no_parts(question: str) -> None:
    assert parts_of(question) is None
