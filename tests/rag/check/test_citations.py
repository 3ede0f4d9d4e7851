"""The citation checker: each rule catches its fault and lets the faithful answer through."""

from __future__ import annotations

import random

import pytest

from rag.check.citations import Problem, Report, check
from rag.generate.extractive import extractive_answer
from rag.generate.prompt import PromptSource
from rag.messages import REFUSAL
from rag.results import Hit
from tests.rag.factories import LEAVE_TEXT, LEVELS_TEXT, REFUND_TEXT, make_hit, policy_hits

REFUND_QUESTION = "我报了流利级，交了 4800 元，还剩 12 课时没上，现在退费能退多少？"
SEED_REFUND_ANSWER = (
    "按剩余课时退费：4800 × 12 ÷ 16 = 3600 元[1]，手续费 3600 × 5% = 180 元[1]，"
    "应退 3600 − 180 = 3420 元[1]。"
)


def kinds(text: str, hits: list[Hit] | None = None, *, question: str = "") -> list[str]:
    report = check(text, policy_hits() if hits is None else hits, question=question)
    return [problem.kind for problem in report.problems]


# --- unknown_reference ---------------------------------------------------------------------


def test_a_reference_beyond_the_sources_is_named_with_the_available_range() -> None:
    report = check("退费时收取 5% 的手续费[7]。", policy_hits())
    assert report.problems == (
        Problem(
            "unknown_reference",
            "引用了不存在的编号 [7]，本次只提供了 1~3",
            "退费时收取 5% 的手续费[7]。",
            refs=(7,),
        ),
    )


@pytest.mark.parametrize("marker", ["[1, 7]", "【7】", "［0］", "[2-7]"])
def test_unknown_references_are_caught_in_every_marker_form(marker: str) -> None:
    assert "unknown_reference" in kinds(f"退费时收取 5% 的手续费{marker}。")


def test_an_english_answer_gets_an_english_message_for_a_missing_source() -> None:
    report = check("Employees receive 20 days of paid leave [4].", policy_hits())
    assert report.messages == ("cites [4], which does not exist: this answer had sources 1~3",)


def test_references_within_range_pass() -> None:
    assert check("退费时收取 5% 的手续费，最低 50 元[1]。", policy_hits()).ok


# --- no_citation ---------------------------------------------------------------------------


def test_an_answer_without_any_citation_is_caught() -> None:
    assert kinds("退费时收取 5% 的手续费，最低 50 元。") == ["no_citation"]


def test_refusals_need_no_citation() -> None:
    assert check(REFUSAL["zh"], policy_hits()).ok
    assert check(REFUSAL["en"], policy_hits()).ok


def test_a_fact_after_the_last_citation_of_its_paragraph_is_caught() -> None:
    text = "口语课共分四个级别[2]。每个级别 16 课时，每课时 45 分钟。"
    report = check(text, policy_hits())
    assert [p.kind for p in report.problems] == ["no_citation"]
    assert report.problems[0].sentence == "每个级别 16 课时，每课时 45 分钟。"


def test_a_citation_covers_the_uncited_sentences_before_it_in_its_paragraph() -> None:
    assert check("口语课共分四个级别。每个级别 16 课时[2]。", policy_hits()).ok


def test_lead_ins_headings_and_courtesy_need_no_citation() -> None:
    text = (
        "## 退费\n**退费计算**\n资料原文如下：\n"
        "退费时收取退款金额 5% 的手续费，最低 50 元[1]。\n希望对你有帮助！"
    )
    assert check(text, policy_hits()).ok


# --- the seed refund answer and its fabricated variants ------------------------------------


def test_the_seed_refund_answer_passes() -> None:
    assert check(SEED_REFUND_ANSWER, policy_hits(), question=REFUND_QUESTION).ok


def test_the_seed_refund_answer_as_one_formula_passes() -> None:
    text = "应退 4800 × 12 ÷ 16 − 4800 × 12 ÷ 16 × 5% = 3420 元[1]。"
    assert check(text, policy_hits(), question=REFUND_QUESTION).ok


def test_six_levels_of_twelve_lessons_is_caught_as_invented_numbers() -> None:
    report = check("口语课一共六级，每级 12 课时[2]。", policy_hits())
    assert [p.kind for p in report.problems] == ["ungrounded_number"]
    assert "「六级」「12 课时」" in report.problems[0].message


def test_eighty_percent_refund_is_caught_as_an_invented_number() -> None:
    report = check("按剩余课时的 80% 退[1]。", policy_hits())
    assert report.messages == ("数字「80%」在所引资料 [1] 里找不到，也不是回答中算式的结果",)


def test_the_seed_refund_answer_without_the_question_asks_where_twelve_came_from() -> None:
    report = check(SEED_REFUND_ANSWER, policy_hits())
    assert [p.kind for p in report.problems] == ["ungrounded_number"]
    assert "「12」" in report.problems[0].message


# --- ungrounded_number ---------------------------------------------------------------------


def test_numbers_written_differently_from_the_source_are_grounded() -> None:
    text = (
        "口语课共分4个级别，每个级别十六课时，每课时四十五分钟[2]；"
        "手续费为百分之五，最低 ５０ 元[1]。"
    )
    assert check(text, policy_hits()).ok


def test_results_of_correct_arithmetic_are_grounded_afterwards() -> None:
    text = "可退 4800 × 12 ÷ 16 = 3600 元[1]。扣除 5% 手续费 180 元后，应退 3420 元[1]。"
    report = check(text, policy_hits(), question="还剩 12 课时")
    assert [p.kind for p in report.problems] == ["ungrounded_number"]
    assert "「180 元」「3420 元」" in report.problems[0].message


def test_a_number_must_be_in_the_source_the_sentence_cites_not_just_any_source() -> None:
    report = check("每个级别 16 课时，每课时 45 分钟[1]。", policy_hits())
    assert [p.kind for p in report.problems] == ["ungrounded_number"]
    assert "「45 分钟」" in report.problems[0].message


def test_an_uncited_sentence_is_checked_against_its_paragraphs_citations() -> None:
    text = "流利级原价 4800 元，共 16 课时[1]。\n\n每课时 60 分钟[2]。另外每课时 90 分钟。"
    kinds_found = kinds(text)
    assert kinds_found.count("ungrounded_number") == 2
    assert "no_citation" in kinds_found


def test_dates_are_grounded_by_their_parts() -> None:
    hits = policy_hits()
    assert check("Unused leave expires on 31 March of the following year [3].", hits).ok
    assert kinds("Unused leave expires on 30 June of the following year [3].", hits) == [
        "ungrounded_number"
    ]


def test_an_english_answer_with_an_invented_number_gets_an_english_message() -> None:
    report = check("Full-time employees receive 25 days of paid annual leave [3].", policy_hits())
    assert report.messages == (
        "“25” not found in the cited source [3], nor the result of a calculation in the answer",
    )


# --- wrong_arithmetic ----------------------------------------------------------------------


def test_the_seed_formula_with_a_wrong_result_is_caught_once() -> None:
    text = "应退 4800 × 12 ÷ 16 − 4800 × 12 ÷ 16 × 5% = 3500 元[1]。"
    report = check(text, policy_hits(), question=REFUND_QUESTION)
    assert report.messages == (
        "算式算错了：4800 × 12 ÷ 16 − 4800 × 12 ÷ 16 × 5% = 3500 元，左边实际等于 3420，不是 3500",
    )


def test_wrong_arithmetic_in_english_is_named_in_english() -> None:
    hits = [make_hit("The meal allowance is 120 CNY per full day and 60 CNY on travel days.")]
    report = check("Allowance: 60 + 120 + 60 = 260 CNY [1].", hits)
    assert [p.kind for p in report.problems] == ["wrong_arithmetic"]
    assert report.messages[0].startswith("wrong arithmetic: 60 + 120 + 60 = 260 CNY")


# --- unrelated_source ----------------------------------------------------------------------


def test_a_citation_to_a_source_sharing_nothing_is_caught() -> None:
    hits = [make_hit(REFUND_TEXT), make_hit(LEVELS_TEXT, source="courses/levels.md")]
    report = check("退费时收取退款金额的手续费[2]。", hits)
    assert [p.kind for p in report.problems] == ["unrelated_source"]
    assert report.problems[0].message.startswith("引用 [2] 对不上")


def test_a_citation_to_a_near_miss_while_another_source_holds_the_sentence_is_caught() -> None:
    hits = [
        make_hit("教材费每个级别 280 元，随课程一起缴纳；教材发放后不予退还。"),
        make_hit("学员完成一个级别后，可自行决定是否继续报读下一级别。", source="courses.md"),
    ]
    assert "unrelated_source" in kinds("教材发放后不予退还，随课程一起缴纳[2]。", hits)
    assert check("教材发放后不予退还，随课程一起缴纳[1]。", hits).ok


def test_a_paraphrase_sharing_a_term_with_its_source_passes() -> None:
    assert check("退费是按照还没上的课时来算的[1]。", policy_hits()).ok


def test_a_source_in_another_language_is_not_compared_term_by_term() -> None:
    hits = [make_hit(REFUND_TEXT)]
    assert check("The handling fee is 5% of the refund, at least 50 yuan [1].", hits).ok


def test_a_source_that_supplies_the_numbers_of_a_calculation_is_related() -> None:
    text = "剩余 16 − 4 = 12 课时，差价为（5600 − 4800）× 12 ÷ 16 = 600 元[1][2]。"
    hits = [
        make_hit("转级差价 =（新级别课程费 − 原级别课程费）× 剩余课时 ÷ 16。"),
        make_hit("| 流利级 | 4800 元 |\n| 商务级 | 5600 元 |", source="courses.md"),
    ]
    assert check(text, hits, question="流利级上了 4 课时").ok


# --- the offline extractive answerer always passes -----------------------------------------

REALISTIC_SOURCES = [
    make_hit(REFUND_TEXT),
    make_hit(LEVELS_TEXT, source="courses/levels.md"),
    make_hit(LEAVE_TEXT, source="hr/leave.md"),
    make_hit(
        "学员单独报读流利级，实付课程费 4800 元，剩余 12 课时（共 16 课时）：\n\n"
        "- 可退金额：4800 × 12 ÷ 16 = 3600 元\n- 手续费：3600 × 5% = 180 元\n"
        "- 实际退费：3600 − 180 = 3420 元",
        source="refund.md",
    ),
    make_hit(
        "| 级别 | 课程费 | 教材费 |\n| --- | --- | --- |\n| 入门级 | 3600 元 | 280 元 |\n"
        "| 流利级 | 4800 元 | 280 元 |\n\n教材费每个级别 280 元，教材发放后不予退还。"
        "第三次起每次收取 100 元服务费。",
        source="courses.md",
    ),
]


@pytest.mark.parametrize(
    "question",
    [
        "口语课一共有几级？",
        "流利级还剩 12 课时，退费能退多少？",
        "教材费能退吗？",
        "每课时多长时间？",
        "手续费怎么收？",
        "How many days of annual leave do employees get?",
        "When does unused leave expire?",
        "入门级多少钱？",
        "你们的雅思保过班多少钱？",
    ],
)
def test_the_extractive_answerers_answers_always_pass(question: str) -> None:
    sources = [PromptSource(n, "", hit.chunk.text) for n, hit in enumerate(REALISTIC_SOURCES, 1)]
    answer = extractive_answer(question, sources)
    assert check(answer, REALISTIC_SOURCES, question=question).ok, answer


# --- the report ------------------------------------------------------------------------------


def test_problem_kinds_are_validated_with_the_allowed_values_in_the_message() -> None:
    with pytest.raises(ValueError, match="'made_up' is not one of"):
        Problem("made_up", "x")


def test_a_report_without_problems_is_ok_and_lists_messages_in_order() -> None:
    assert Report().ok
    report = check("按剩余课时的 80% 退[7]。口语课一共六级[2]。", policy_hits())
    assert not report.ok
    assert [p.kind for p in report.problems] == ["unknown_reference", "ungrounded_number"]
    assert report.messages[0] == "引用了不存在的编号 [7]，本次只提供了 1~3"


HEALTH_CHECKS = (
    "| 参数 | 默认值 | 描述 |\n| --- | --- | --- |\n"
    "| healthy.http_statuses | [200, 599] | 主动检查时认为健康的 HTTP 状态码范围 |\n"
    "| unhealthy.http_failures | 5 | 连续失败几次后节点被标记为不健康 |"
)


def test_a_value_range_copied_from_a_source_is_not_a_citation() -> None:
    """A correct answer once went to review for "引用了不存在的编号 [200]": the range
    ``[200, 599]`` of a configuration table was read as citations [200] and [599]."""
    hits = [make_hit(HEALTH_CHECKS)]
    answer = "主动检查时认为健康的 HTTP 状态码范围是 [200, 599][1]。"
    assert check(answer, hits).ok
    in_a_table = "| 参数 | 默认值 |\n| --- | --- |\n| healthy.http_statuses | [200, 599] [1] |"
    assert check(in_a_table, hits).ok


def test_a_bracket_no_source_writes_is_still_a_citation_to_check() -> None:
    hits = [make_hit(HEALTH_CHECKS)]
    assert kinds("主动检查时认为健康的 HTTP 状态码范围是 [200, 598][1]。", hits) == [
        "unknown_reference",
        "unknown_reference",
    ]
    assert kinds("连续失败 5 次后节点被标记为不健康[2]。", hits) == ["unknown_reference"]


def test_an_answer_with_no_sources_at_all_says_none_were_provided() -> None:
    report = check("退费时收取 5% 的手续费[1]。", [])
    assert report.messages[0] == "引用了不存在的编号 [1]，本次没有提供任何资料"


def test_a_cited_lead_in_covers_the_list_and_table_under_it() -> None:
    text = (
        "各级别课程费如下[1]：\n| 级别 | 课程费 |\n| --- | --- |\n| 入门级 | 3600 元 |\n"
        "| 流利级 | 4800 元 |\n\n手续费规则如下[1]：\n- 退款金额的 5%\n- 最低 50 元"
    )
    hits = [make_hit("| 入门级 | 3600 元 |\n| 流利级 | 4800 元 |\n手续费 5%，最低 50 元。")]
    assert check(text, hits).ok


def test_a_list_number_cut_off_from_its_item_is_no_claim_and_hands_on_its_citation() -> None:
    """ "1[1]." (a model's list that stopped at its first number) states no amount of 1; its
    citation belongs to the lead-in above it."""
    hits = [make_hit(LEAVE_TEXT)]
    lead_in = "Request your annual leave from your line manager as follows:"
    assert check(f"{lead_in}\n\n1[1].", hits).ok
    assert kinds(f"{lead_in}\n\n1[1] week ahead.", hits) == ["ungrounded_number"]


def test_a_cited_lead_in_covers_its_list_across_a_blank_line_until_a_heading() -> None:
    """Models leave a blank line before a table or between list items; a heading starts
    something else."""
    hits = [make_hit("| 入门级 | 3600 元 |\n| 流利级 | 4800 元 |\n手续费 5%，最低 50 元。")]
    table = "各级别课程费如下[1]：\n\n| 级别 | 课程费 |\n| --- | --- |\n| 入门级 | 3600 元 |"
    assert check(table, hits).ok
    loose = "手续费规则如下[1]：\n\n- 退款金额的 5%\n\n- 最低 50 元"
    assert check(loose, hits).ok
    headed = "手续费规则如下[1]：\n\n## 其他\n- 退款金额的 5%，最低 50 元"
    assert kinds(headed, hits) == ["no_citation"]


def test_a_step_label_is_the_answers_own_numbering_not_a_number_to_ground() -> None:
    hits = [make_hit("填写退费申请表并提供缴费凭证。审核通过后 10 个工作日内原路退回。")]
    steps = "第一步：填写退费申请表并提供缴费凭证[1]。\n第二步：审核通过后 10 个工作日内退回[1]。"
    assert check(steps, hits).ok
    english = "Step 1: Fill in the refund form [1].\n**Step 2:** Wait 10 working days [1]."
    source = "Fill in the refund form. The refund is paid within 10 working days."
    assert check(english, [make_hit(source)]).ok


def test_a_table_header_and_a_closing_wish_need_no_citation() -> None:
    """The column names above "| --- |" are labels; "祝您休假愉快！" states nothing."""
    hits = [make_hit("| 级别 | 课程费 |\n| 入门级 | 3600 元 |\n| 流利级 | 4800 元 |")]
    table = "| 级别 | 课程费（单独报读） |\n| --- | :---: |\n| 入门级 | 3600 元 [1] |"
    assert check(table, hits).ok
    assert check("入门级课程费 3600 元[1]。祝您学习愉快！", hits).ok
    wish_with_a_claim = "入门级课程费 3600 元[1]。祝你好运，流利级只要 800 元！"
    assert kinds(wish_with_a_claim, hits) == ["no_citation", "ungrounded_number"]


LEAVE = "Full-time staff receive 20 days of leave. After five years they receive 25 days."


def test_a_short_line_under_a_table_that_points_back_cites_for_it() -> None:
    """ "以上见加班规定[1]。" under a table, "Source for the list above: [1]" under a list: the
    rows are covered, and their numbers still checked against what the line cites."""
    hits = [make_hit("| 入门级 | 3600 元 |\n| 流利级 | 4800 元 |\n手续费 5%，最低 50 元。")]
    table = "| 级别 | 课程费 |\n| --- | --- |\n| 入门级 | 3600 元 |\n| 流利级 | 4800 元 |"
    assert check(f"{table}\n\n以上见课程价目表[1]。", hits).ok
    assert kinds(f"{table}\n| 商务级 | 5600 元 |\n\n以上见课程价目表[1]。", hits) == [
        "ungrounded_number"
    ]
    listed = "- Full-time staff: 20 days\n- After five years: 25 days"
    assert check(f"{listed}\n\n(Source for the list above: [1])", [make_hit(LEAVE)]).ok
    assert check(f"{listed}\n\nThe above is from the leave policy [1].", [make_hit(LEAVE)]).ok
    # A claim of its own covers nothing: both rows are left uncited.
    assert kinds(f"{table}\n\n流利级最受欢迎[1]。", hits) == ["no_citation", "no_citation"]


def test_a_list_under_an_uncited_lead_in_is_not_covered() -> None:
    text = "退费流程如下：\n- 填写退费申请表并提供缴费凭证\n- 教务部审核后 10 个工作日内退回[1]"
    hits = [make_hit("填写退费申请表并提供缴费凭证。审核通过后 10 个工作日内原路退回。")]
    assert kinds(text, hits) == ["no_citation"]


def test_a_closing_sources_line_covers_the_answer_above_it() -> None:
    text = "口语课共分四个级别。\n每个级别 16 课时，每课时 45 分钟。\n\n来源：[2]"
    assert check(text, policy_hits()).ok
    assert kinds("口语课一共六级。\n\n来源：[2]") == ["ungrounded_number"]


def test_an_english_level_number_is_grounded_by_the_sources_numbered_list() -> None:
    hits = [
        make_hit(
            "口语课程共设四个级别：\n1. 入门级\n2. 进阶级\n3. 流利级\n4. 商务级\n流利级 4800 元。"
        )
    ]
    assert check("Level 3 (流利级) costs 4,800 yuan [1].", hits).ok
    assert kinds("Level 5 (流利级) costs 4,800 yuan [1].", hits) == ["ungrounded_number"]


def test_the_checker_never_raises_whatever_the_text() -> None:
    alphabet = [*"0123456789０２一二两十百万点分之第个级元%.,，。：:;!?()（）[]【】-−+×÷*/x=¥$ \n"]
    alphabet += ["[1]", "[7]", "【2】", "[1-3]", "百分之", "May ", "\n- ", "| ", "# ", "March"]
    rng = random.Random(7)
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 50)))
        assert isinstance(check(text, policy_hits(), question=text[::-1]), Report)


def test_a_second_citation_for_one_detail_of_a_sentence_is_not_a_wrong_source() -> None:
    hits = [
        make_hit("口语课程共设四个级别：入门级、进阶级、流利级、商务级。"),
        make_hit("每个级别均为 16 课时，每课时 45 分钟，在八周内完成。", source="courses.md"),
    ]
    text = (
        "根据课程体系[1]，口语课共有 4 个级别，依次是入门级、进阶级、流利级和商务级，"
        "八周完成一个级别[2]。"
    )
    assert check(text, hits).ok


def test_a_reference_list_label_at_the_end_covers_the_answer() -> None:
    text = "每个级别 16 课时。\n每课时 45 分钟。\n\n参考资料：[2]"
    assert check(text, policy_hits()).ok
