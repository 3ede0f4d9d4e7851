"""What a question asks for, and whether a sentence holds something new of it."""

from __future__ import annotations

import pytest

from rag.asked import Asked, asked_for


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("口语课一共有几级？", {"amount"}),
        ("how many hrs of PTO do we earn each pay period", {"amount"}),
        ("加班费怎么算？", {"formula"}),
        ("How is the refund calculated?", {"formula"}),
        ("报名截止是什么时候？", {"time"}),
        ("when do the ducks march at the peabody", {"time"}),
        ("who sings at the beginning of nice for what", {"person"}),
        ("这门课由谁负责？", {"person"}),
        ("where is the dead sea located", {"place"}),
        ("长柄艾纳香分布在哪里？", {"place"}),
        ("how do I get a monitor for working from home", {"steps"}),
        ("apisix 能代理 mysql 吗 怎么开", {"steps"}),
        ("what is the great wall of china built out of", set()),
        ("为什么次磷酸受到管制？", set()),
        ("公司怎么样？", set()),
    ],
)
def test_what_a_question_asks_for(question: str, kinds: set[str]) -> None:
    assert asked_for(question) == kinds


def test_a_number_the_question_already_says_answers_nothing() -> None:
    asked = Asked.of("my zoom calls get cut at 40 min, how long can a meeting be")
    assert not asked.held("Meetings longer than 40 minutes need a license.")
    assert asked.held("Licensed users can hold meetings of up to 30 hours.") == {"amount"}


def test_an_amount_stands_beside_the_unit_asked_about() -> None:
    asked = Asked.of("口语课一共有几级？")
    assert asked.has_unit("口语课程共设四个级别。")
    assert not asked.has_unit("本制度自 2026 年 9 月 1 日起执行。")
    assert not asked.held("本制度自 2026 年 9 月 1 日起执行。")
    assert asked.held("本制度自 2026 年 9 月 1 日起执行。", unit=False) == {"amount"}
    days = Asked.of("How many days of annual leave do I get?")
    assert days.has_unit("Staff receive 15 working days of paid annual leave.")


def test_a_formula_or_a_rate_says_how_an_amount_is_worked_out() -> None:
    asked = Asked.of("加班费怎么算？")
    assert asked.held("休息日加班的，按本人小时工资的 200% 支付加班工资。") == {"formula"}
    assert asked.held("退费金额 = 实付课程费 × 剩余课时 ÷ 总课时。") == {"formula"}
    assert not asked.held("审核通过后 10 个工作日内原路退回。")


def test_a_name_a_time_and_a_place_are_new_ones() -> None:
    who = Asked.of("who played greg's mom in diary of a wimpy kid")
    assert who.held("Rachael Harris played Susan Heffley.") == {"person"}
    assert not who.held("Greg's mom is loving.")
    assert Asked.of("马库斯在哪支车队？").held("马库斯·温克霍克效力于世爵车队。") == set()
    assert Asked.of("谁赢得了比赛？").held("马库斯·温克霍克赢得了比赛。") == {"person"}
    assert Asked.of("when did it open").held("It opened on April 3, 1941.") == {"time"}
    assert Asked.of("什么时候开业？").held("该酒店于1925年开业。") == {"time"}
    where = Asked.of("where do I send the form")
    assert where.held("Email it to tts-events@gsa.gov.") == {"place"}
    assert where.held("The bridge now stands in Lake Havasu City.") == {"place"}
    assert where.held("If you drive, you may park at 355 McAllister Street.") == {"place"}
    assert not where.held("Send it after your manager approved it.")
    assert Asked.of("黄蝉种植在哪里？").held("黄蝉原生于巴西，现广植于广东省。") == {"place"}


def test_steps_are_a_list_or_a_command() -> None:
    asked = Asked.of("how do I sign my commits")
    assert asked.held("Run `git config --global commit.gpgsign true`.") == {"steps"}
    assert asked.held("Sign every commit.", steps=True) == {"steps"}
    assert not asked.held("Signed commits show a badge.")
    fix = Asked.of("my calls get cut at 40 min, how do I get that fixed")
    assert fix.held("Submit a Service Now request to be upgraded to a Licensed user.")
    assert fix.held("Try cleaning the contact pad with a pencil eraser.")
    assert fix.held('Select "GSA Generic Request".')
    assert not fix.held("Employees in the field get a license.")
    assert not fix.held("During the meeting, the host keeps the view.")


def test_a_unit_written_the_other_way_is_the_unit_asked_about() -> None:
    # 几天 is answered in 工作日, 几周 in 星期: the day beside the number counts, not a date.
    days = Asked.of("年假有几天？")
    assert days.has_unit("全职员工每个日历年享有 15 个工作日的带薪年假。")
    assert not days.has_unit("结转的天数须在次年 3 月 31 号前休完。")
    assert Asked.of("产假有几周？").has_unit("产假为 16 个星期。")
