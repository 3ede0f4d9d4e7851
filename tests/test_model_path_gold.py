"""The model-path benchmark's rule for "this answer gives the gold": it decides which answers
are listed as shown without the gold, so a wrong number must never count as the gold."""

from __future__ import annotations

from bench.model_path import holds


def test_the_whole_gold_in_any_case_width_or_markup_counts() -> None:
    assert holds("You should enter Administrative Leave Code ０９４ [1].", "094")
    assert holds("默认日志等级为 `WARN`[1]。", "warn")


def test_most_of_a_long_span_counts_when_its_numbers_are_there() -> None:
    gold = "这时义军被迫兵分两路，刘六、刘七、齐彦名为一路，杨虎、赵鐩、刘三、邢老虎为一路。"
    assert holds("两路是刘六、刘七、齐彦名一路，杨虎、赵鐩、刘三、邢老虎一路[1]。", gold)


def test_a_long_span_with_another_number_is_not_the_gold() -> None:
    answer = "You earn 4 annual leave hours per pay period [4]."
    assert not holds(answer, "6 hours per pay period")
    assert holds("You earn 6 hours per pay period [2].", "6 hours per pay period")


def test_a_number_inside_a_longer_one_is_not_given() -> None:
    assert not holds("You will earn 56 more hours per pay period.", "6 hours per pay period")


def test_a_short_gold_must_be_given_whole() -> None:
    assert not holds("The code is 09 [1].", "094")
    assert not holds("anything", "")
