from __future__ import annotations

from rag.check.attribution import attribute, recite
from rag.check.screen import screen
from tests.rag.factories import make_hit

PARKING = "员工凭停车证可在北区停车场停车。停车证每月 30 元。停车证在前台办理。"
CANTEEN = "食堂开放时间为 8:00 至 15:00。法定节假日不开放。"
LEAVE = (
    "Full-time employees receive 20 days of paid annual leave per year. "
    "Leave requests must be approved by your manager at least two weeks in advance."
)
HITS = [
    make_hit(CANTEEN, source="canteen.md"),
    make_hit(PARKING, source="parking.md"),
    make_hit(LEAVE, source="leave.md"),
]


def test_each_sentence_gets_the_source_that_holds_it_before_its_full_stop() -> None:
    draft = "停车证每月 30 元，在前台办理。食堂法定节假日不开放。"
    assert attribute(draft, HITS) == (
        "停车证每月 30 元，在前台办理[2]。食堂法定节假日不开放[1]。",
        2,
    )


def test_an_english_paraphrase_is_given_its_source() -> None:
    draft = "Full-time staff get 20 days of paid annual leave each year."
    assert attribute(draft, HITS) == (
        "Full-time staff get 20 days of paid annual leave each year[3].",
        1,
    )


def test_a_sentence_no_source_holds_is_left_uncited_and_the_checker_flags_it() -> None:
    draft = "停车证每月 30 元。食堂周末供应晚餐，外卖可以送到工位。"
    text, given = attribute(draft, HITS)
    assert (text, given) == ("停车证每月 30 元[2]。食堂周末供应晚餐，外卖可以送到工位。", 1)
    problems = screen(text, HITS, language="zh").report.problems
    assert [(p.kind, p.sentence) for p in problems] == [
        ("no_citation", "食堂周末供应晚餐，外卖可以送到工位。")
    ]


def test_a_source_sharing_only_a_few_words_is_not_given() -> None:
    # "停车" and "前台" are in the parking source; the claim is not
    draft = "访客的车可以停在前台门口，不收费。"
    assert attribute(draft, HITS) == (draft, 0)


def test_the_checker_still_reads_a_given_source_with_every_rule() -> None:
    text, given = attribute("停车证每月 30 元，在前台办理。停车证每月 50 元。", HITS)
    assert given >= 1
    kinds = {p.kind for p in screen(text, HITS, language="zh").report.problems}
    assert kinds & {"ungrounded_number", "no_citation"}


def test_a_draft_that_cites_anything_is_left_as_the_model_wrote_it() -> None:
    draft = "停车证每月 30 元[1]。停车证在前台办理。"
    assert attribute(draft, HITS) == (draft, 0)


def test_a_sentence_in_another_language_than_every_source_is_not_given_one() -> None:
    draft = "A parking permit costs 30 yuan a month."
    assert attribute(draft, [make_hit(PARKING)]) == (draft, 0)


def test_a_sentence_repeated_word_for_word_is_cited_each_time() -> None:
    draft = "停车证在前台办理。\n\n停车证在前台办理。"
    assert attribute(draft, HITS) == ("停车证在前台办理[2]。\n\n停车证在前台办理[2]。", 2)


def test_courtesy_and_an_empty_list_of_sources_get_nothing() -> None:
    assert attribute("希望对你有帮助！", HITS) == ("希望对你有帮助！", 0)
    assert attribute("停车证在前台办理。", []) == ("停车证在前台办理。", 0)


def test_a_marker_on_a_source_not_holding_the_sentence_moves_to_the_one_that_does() -> None:
    # the 1.5B model: "4分钟内不得进行配对[3]" with [3] about newborns, [1] holding it word for word
    assert recite("停车证每月 30 元[1]。", HITS) == ("停车证每月 30 元[2]。", 1)
    assert recite("停车证每月 30 元[1][2]。", HITS) == (
        "停车证每月 30 元[1][2]。",
        0,
    )  # [2] holds it


def test_a_marker_its_source_partly_holds_is_the_checkers_to_judge() -> None:
    # [2] holds the permit's price, not its colour: the model chose it, the checker reads it
    draft = "停车证每月 30 元，证件为蓝色[2]。"
    assert recite(draft, HITS) == (draft, 0)


def test_a_marker_no_retrieved_source_justifies_moving_stays() -> None:
    draft = "访客的车可以停在前台门口，不收费[1]。"
    assert recite(draft, HITS) == (draft, 0)


def test_a_marker_covering_more_than_its_sentence_stays() -> None:
    # "A。B[1]。": [1] covers both; moving it for B would strip A of its source
    draft = "食堂开放时间为 8:00 至 15:00。停车证每月 30 元[1]。"
    assert recite(draft, HITS) == (draft, 0)
