"""What a question record keeps: the text of the unanswered by default, hashes otherwise."""

from __future__ import annotations

import pytest

from rag.problems import Problem
from rag.report.records import keeps_text, question_key, question_record
from rag.results import Answer, Refusal, Unverified
from tests.rag.factories import policy_hits


@pytest.mark.parametrize(
    ("verdict", "record_questions", "log_questions", "kept"),
    [
        ("refusal", True, False, True),
        ("unverified", True, False, True),
        ("answer", True, False, False),
        ("answer", True, True, True),
        ("refusal", False, False, False),
        ("answer", False, True, False),
    ],
)
def test_texts_are_kept_for_unanswered_questions_unless_turned_off(
    verdict: str, record_questions: bool, log_questions: bool, kept: bool
) -> None:
    assert (
        keeps_text(verdict, record_questions=record_questions, log_questions=log_questions) is kept
    )


def test_an_answer_records_the_documents_it_cited_not_every_hit() -> None:
    hits = tuple(policy_hits())
    answer = Answer("流利级多少钱？", "流利级 4800 元 [1]，四个级别 [2]。", hits, {"total": 12.5})
    record = question_record(
        answer, scope="all", index_version="v1", record_questions=True, log_questions=False, at=5.0
    )
    assert record.sources == ("policies/refund.md", "courses/levels.md")
    assert record.verdict == "answer"
    assert record.text is None
    assert record.total_ms == 12.5
    assert record.hash == question_key("流利级多少钱?")  # one spelling for both question marks


def test_a_refusal_keeps_its_text_reason_and_near_misses() -> None:
    refusal = Refusal("火星上的天气怎么样？", "…", tuple(policy_hits()), reason="below_threshold")
    record = question_record(
        refusal, scope="all", index_version="v1", record_questions=True, log_questions=False
    )
    assert record.text == "火星上的天气怎么样？"
    assert record.reason == "below_threshold"
    assert record.sources == ("policies/refund.md", "courses/levels.md", "hr/leave.md")


def test_record_questions_false_keeps_only_the_hash() -> None:
    draft = Unverified(
        "退费要多久？",
        "三天 [1]",
        (Problem("unsupported_claim", "unsupported"),),
        tuple(policy_hits()),
    )
    record = question_record(
        draft, scope="all", index_version="v1", record_questions=False, log_questions=True
    )
    assert record.text is None
    assert record.hash == question_key("退费要多久？")
