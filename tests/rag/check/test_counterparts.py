"""What a cited source has instead of a wrong name or number: same kind, nearest place."""

from __future__ import annotations

import pytest

from rag.check.citations import check
from rag.check.counterparts import Instead, name_instead, number_instead
from rag.check.numbers import quantities
from tests.rag.factories import LEAVE_TEXT, LEVELS_TEXT, make_hit

NEWS = "德国总统施泰因迈尔周二在柏林会见了法国总统马克龙。双方讨论了能源合作。"


def test_a_wrong_person_gets_the_person_the_source_names_in_that_place() -> None:
    sentence = "德国总统弗拉德周二在柏林会见了法国总统马克龙。"

    found = name_instead("弗拉德", sentence, [(1, NEWS)], "zh")

    # jieba tags 施泰因 + 迈尔: the run is joined; 马克龙 is said by the sentence already
    assert found == Instead(1, "施泰因迈尔")


def test_an_english_name_is_matched_by_the_words_around_it() -> None:
    source = "The plan was approved by Chancellor Scholz in Berlin and audited by Deloitte."

    found = name_instead("Merkel", "It was approved by Chancellor Merkel.", [(2, source)], "en")

    assert found == Instead(2, "Scholz")


@pytest.mark.parametrize(
    ("sentence", "said", "instead"),
    [
        ("口语课一共六级，每级 16 课时。", "六级", "四个级别"),  # counted in 级 either way
        ("口语课共分四个级别，每级 12 课时。", "12 课时", "16 课时"),
        ("每课时 50 分钟。", "50 分钟", "45 分钟"),
    ],
)
def test_a_wrong_number_gets_the_sources_number_of_the_same_unit(
    sentence: str, said: str, instead: str
) -> None:
    [quantity] = [q for q in quantities(sentence) if q.text == said]

    assert number_instead(quantity, sentence, [(1, LEVELS_TEXT)], "zh") == Instead(1, instead)


def test_an_english_number_shows_its_unit_from_the_source() -> None:
    sentence = "Full-time employees receive 25 days of paid annual leave."
    [quantity] = quantities(sentence)

    assert number_instead(quantity, sentence, [(1, LEAVE_TEXT)], "en") == Instead(1, "20 days")


def test_nothing_is_suggested_when_the_source_has_nothing_of_that_kind() -> None:
    sentence = "退费时收取 8% 的手续费。"
    [quantity] = quantities(sentence)

    assert number_instead(quantity, sentence, [(1, LEVELS_TEXT)], "zh") is None
    assert name_instead("弗拉德", "总统弗拉德说。", [(1, LEVELS_TEXT)], "zh") is None


def test_the_checker_puts_what_the_source_has_in_the_note_not_the_message() -> None:
    """The message (check-eval, logs) keeps its wording; the card's note says what to fix."""
    hit = make_hit(NEWS, source="news/berlin.md")
    text = "德国总统弗拉德里希周二在柏林会见了法国总统马克龙[1]。"

    [problem] = check(text, [hit], question="谁在柏林会见了马克龙？").problems

    assert (problem.kind, problem.sentence, problem.refs) == ("ungrounded_name", text, (1,))
    assert problem.note == "回答说「弗拉德里希」，所引资料 [1] 写的是「施泰因迈尔」"
    assert problem.message.startswith("「弗拉德里希」不在所引资料 [1] 里，也不在问题里")
    [english] = check(text, [hit], question="Who met Macron?", language="en").problems
    assert english.note == "the answer says “弗拉德里希”, [1] names “施泰因迈尔”"


def test_a_name_standing_elsewhere_in_the_source_is_not_guessed() -> None:
    """Only a thing where the anchor words put it: anywhere else it would be a guess."""
    source = "A chancellor approval is rare in this state. The audit went to Deloitte in 2021."

    found = name_instead("Merkel", "It was approved by Chancellor Merkel.", [(1, source)], "en")

    assert found is None
