"""The offline answer to a list, count or comparison question: each part quoted with its own
citation, no total the sources don't state, and the checker passes it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.check.screen import screen
from rag.generate.composed import NOT_COMPLETE
from rag.generate.extractive import extractive_answer
from rag.generate.prompt import build_messages, parse_prompt
from rag.messages import is_refusal_text
from rag.results import Hit
from tests.rag.factories import make_hit

TRAVEL = make_hit(
    "员工出差须在出发前通过 OA 系统提交出差申请，由部门负责人审批；"
    "出差超过 5 天的，还须分管副总裁审批。",
    source="admin/travel.md",
    heading=("差旅管理制度", "一、出差审批"),
)
OVERTIME = make_hit(
    "加班须事先在 OA 系统提交加班申请，由直属上级审批；每月加班超过 36 小时的，须人力资源部审批。",
    source="admin/attendance.md",
    heading=("考勤与加班管理规定", "三、加班申请与审批"),
)
HOTEL = make_hit(
    "一线城市住宿费上限为每晚 600 元，其他城市每晚 400 元。",
    source="admin/travel.md",
    heading=("差旅管理制度", "三、住宿标准"),
)
LEAVE_PAGES = [
    make_hit(
        "员工累计工作已满 1 年的，每年享有带薪年假 5 天。",
        source="leave/annual.md",
        heading=("年休假管理办法", "一、年假天数"),
    ),
    make_hit(
        "病假期间，公司按本人月基本工资的 80% 支付病假工资。",
        source="leave/sick.md",
        heading=("病假管理规定", "三、病假工资"),
    ),
    make_hit(
        "员工依法登记结婚的，可享受婚假 3 天。",
        source="leave/marriage.md",
        heading=("婚假规定", "婚假天数"),
    ),
    make_hit(
        "直系亲属去世的，可享受丧假 3 天。", source="leave/bereavement.md", heading=("丧假规定",)
    ),
]
PRICING = "en/plans/pricing.md"
PLANS = [
    make_hit(
        "You can upgrade at any time; the price difference is charged pro rata.",
        source=PRICING,
        heading=("Relay Plans", "Changing plans"),
    ),
    make_hit(
        "The Pro plan costs $8 per user per month and adds guest accounts.",
        source=PRICING,
        heading=("Relay Plans", "Pro plan"),
    ),
    make_hit(
        "The Team plan costs $15 per user per month and adds single sign-on.",
        source=PRICING,
        heading=("Relay Plans", "Team plan"),
    ),
]


def answered(question: str, hits: Sequence[Hit]) -> str:
    """The offline answer as the pipeline gets it (through the prompt), checked."""
    prompt = parse_prompt(build_messages(question, hits))
    text = extractive_answer(prompt.question, prompt.sources)
    if not is_refusal_text(text):
        report = screen(text, hits, question=question).report
        assert report.ok, report.problems
    return text


def cited_with(text: str, name: str) -> set[int]:
    """The source numbers cited by the lines of ``text`` that name ``name``."""
    return {
        int(n) for line in text.splitlines() if name in line for n in re.findall(r"\[(\d+)\]", line)
    }


def test_a_comparison_names_each_thing_with_its_own_source() -> None:
    hits = [HOTEL, OVERTIME, TRAVEL]
    text = answered("出差和加班各需要谁审批？", hits)
    assert cited_with(text, "部门负责人") == {3}
    assert cited_with(text, "直属上级") == {2}
    assert "600 元" not in text  # the hotel limit answers neither part


def test_a_comparison_quotes_the_things_own_sentences_not_one_naming_a_word_of_them() -> None:
    text = answered("What's the difference between the Pro and the Team plan?", PLANS)
    assert cited_with(text, "The Pro plan") == {2}
    assert cited_with(text, "The Team plan") == {3}
    assert "pro rata" not in text


def test_a_thing_no_source_names_is_said_to_be_missing() -> None:
    text = answered("出差和调岗各需要谁审批？", [TRAVEL, HOTEL])
    assert cited_with(text, "部门负责人") == {1}
    assert "资料里没有提到「调岗」。" in text


def test_nothing_compared_in_the_sources_is_refused() -> None:
    assert is_refusal_text(answered("火星和金星有什么区别？", [TRAVEL, OVERTIME]))


def test_a_count_names_every_page_and_claims_no_total() -> None:
    text = answered("一共有几类假期？", LEAVE_PAGES)
    for n, name in enumerate(("年假", "病假", "婚假", "丧假"), start=1):
        assert cited_with(text, name) == {n}
    assert NOT_COMPLETE["zh"]["count"] in text
    assert not re.search(r"[几\d一二三四五六七八九十]+\s*类", text)


def test_a_list_in_english_names_every_page_and_says_it_may_not_be_all() -> None:
    pages = [
        make_hit(
            "Full-time employees accrue 20 days of paid annual leave per year.",
            source="en/annual.md",
            heading=("Annual Leave", "Entitlement"),
        ),
        make_hit(
            "Sick leave is paid at full salary for up to 10 working days per year.",
            source="en/sick.md",
            heading=("Sick Leave", "When you are ill"),
        ),
        make_hit(
            "Birth parents receive 26 weeks of parental leave.",
            source="en/parental.md",
            heading=("Parental Leave", "Birth parents"),
        ),
        make_hit(
            "Tell HR at least 8 weeks before the leave is due to start.",
            source="en/parental.md",
            heading=("Parental Leave", "Notice"),
        ),
    ]
    text = answered("What kinds of leave are there?", pages)
    assert cited_with(text, "annual leave") == {1}
    assert cited_with(text, "Sick leave") == {2}
    assert cited_with(text, "parental leave") == {3}
    assert "Tell HR" not in text  # a second passage of the parental page names no kind
    assert text.endswith(NOT_COMPLETE["en"]["list"])


def test_a_source_that_states_the_number_is_quoted_first_and_no_note_added() -> None:
    overview = make_hit(
        "公司假期共分为以下四类，具体规定见各制度。", source="leave/index.md", heading=("假期总览",)
    )
    text = answered("一共有几类假期？", [*LEAVE_PAGES, overview])
    assert text.splitlines()[0].startswith("公司假期共分为以下四类")
    assert NOT_COMPLETE["zh"]["count"] not in text


def test_a_list_one_page_holds_whole_is_answered_as_usual() -> None:
    works = make_hit(
        "著作有《精神科学导言》、《哲学的本质》、《世界观、哲学和宗教》等。",
        source="dilthey.md",
        heading=("威廉·狄尔泰",),
    )
    other = make_hit(
        "伏尔泰的朋友们是一部作品，出版于1906年。",
        source="voltaire.md",
        heading=("伏尔泰的朋友们",),
    )
    text = answered("威廉·狄尔泰的著作有哪些？", [works, other])
    assert text.startswith("著作有《精神科学导言》")
    assert "伏尔泰的朋友们" not in text
    assert NOT_COMPLETE["zh"]["list"] not in text
