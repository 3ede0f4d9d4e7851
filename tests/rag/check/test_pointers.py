"""Sentence pointers (CITE_SENTENCES): each claim checked against the sentence it points at."""

from __future__ import annotations

from rag.check.pointers import screen_pointed, shown_text
from rag.generate.prompt import build_messages, source_sentences
from tests.rag.factories import make_hit

POLICY = (
    "流利级原价 4800 元，共 16 课时。"
    "开课后 7 天内可全额退费。"
    "开课 7 天后按剩余课时退费。"
    "退费手续费为可退金额的 5%。"
    "转班每学期限两次。"
)
OTHER = "商务级原价 5600 元，共 20 课时。"


def test_the_prompt_numbers_each_sources_sentences_as_the_checker_does() -> None:
    hits = [make_hit(POLICY), make_hit(OTHER, source="courses/prices.md")]
    *_, human = build_messages("退费手续费是多少？", hits, sentences=True)

    content = str(human.content)
    assert "[1.4] 退费手续费为可退金额的 5%。" in content
    assert "[2.1] 商务级原价 5600 元，共 20 课时。" in content
    assert source_sentences(POLICY)[3] == "退费手续费为可退金额的 5%。"


def test_a_claim_pointing_at_its_sentence_passes_and_askers_see_the_passage_number() -> None:
    hits = [make_hit(POLICY), make_hit(OTHER, source="courses/prices.md")]

    shown, screening = screen_pointed("退费手续费为可退金额的 5%[1.4]。", hits)

    assert shown == "退费手续费为可退金额的 5%[1]。"
    assert screening.report.ok, screening.report.messages


def test_a_claim_whose_number_is_elsewhere_in_the_passage_is_caught_by_its_pointer() -> None:
    hits = [make_hit(POLICY)]
    # Against the whole passage 5% is found; the sentence pointed at (price and hours) and its
    # neighbour (the 7-day refund) say nothing of 5%.
    draft = "流利级退费手续费为 5%[1.1]。"
    assert screen_pointed("流利级退费手续费为 5%[1]。", hits)[1].report.ok

    shown, screening = screen_pointed(draft, hits)

    assert shown == "流利级退费手续费为 5%[1]。"
    kinds = {p.kind for p in screening.report.problems}
    assert "ungrounded_number" in kinds
    [problem] = [p for p in screening.report.problems if p.kind == "ungrounded_number"]
    assert problem.refs == (1,)
    assert problem.sentence == "流利级退费手续费为 5%[1]。"  # as the reviewer sees the answer


def test_a_pointer_to_a_sentence_that_does_not_exist_is_flagged() -> None:
    hits = [make_hit(POLICY)]

    _, screening = screen_pointed("退费手续费为可退金额的 5%[1.9]。", hits, language="en")

    [problem] = [p for p in screening.report.problems if p.kind == "unknown_reference"]
    assert problem.message == "the answer points at sentence 9 of [1], which has only 5"


def test_plain_markers_and_several_pointers_read_together() -> None:
    hits = [make_hit(POLICY), make_hit(OTHER, source="courses/prices.md")]

    assert shown_text("流利级 4800 元[1.1][1.1]，商务级 5600 元[2]。", hits) == (
        "流利级 4800 元[1]，商务级 5600 元[2]。"
    )
    assert shown_text("见[1.1, 2.1]。", hits) == "见[1][2]。"
    assert shown_text("见[7.1]。", hits) == "见[7]。"
