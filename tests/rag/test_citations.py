"""The citation checker: each rule catches its fault and lets the faithful answer through."""

from __future__ import annotations

import pytest

from rag.citations import Problem, check, cited_numbers
from rag.messages import REFUSAL
from rag.results import Hit
from tests.rag.factories import policy_hits

REFUND_QUESTION = "我报了流利级，交了 4800 元，还剩 12 课时没上，现在退费能退多少？"
SEED_REFUND_ANSWER = (
    "按剩余课时退费：4800 × 12 ÷ 16 = 3600 元[1]，手续费 3600 × 5% = 180 元[1]，"
    "应退 3600 − 180 = 3420 元[1]。"
)


def kinds(text: str, hits: list[Hit] | None = None, *, question: str = "") -> list[str]:
    report = check(text, policy_hits() if hits is None else hits, question=question)
    return [problem.kind for problem in report.problems]


# --- markers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A[1]. B[2][3].", [1, 2, 3]),
        ("共四级[1, 2]。", [1, 2]),
        ("共四级[1-3]。", [1, 2, 3]),
        ("共四级［2］，【3】。", [2, 3]),
        ("共四级【1，2】、[2、4]。", [1, 2, 4]),
        ("共四级［１］。", [1]),
        ("no markers here, just [a link](x) and [note]", []),
    ],
)
def test_cited_numbers_reads_every_marker_form_models_write(text: str, expected: list[int]) -> None:
    assert cited_numbers(text) == expected


# --- unknown_reference ---------------------------------------------------------------------


def test_a_reference_beyond_the_sources_is_named_with_the_available_range() -> None:
    report = check("退费时收取 5% 的手续费[7]。", policy_hits())
    assert report.problems == (
        Problem(
            "unknown_reference",
            "引用了不存在的编号 [7]，本次只提供了 1~3",
            "退费时收取 5% 的手续费[7]。",
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
        "退费计算\n资料原文如下：\n"
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
