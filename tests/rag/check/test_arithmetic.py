"""Written-out calculations: found, evaluated without eval(), judged with rounding tolerance."""

from __future__ import annotations

import pytest

from rag.check.arithmetic import calculations, close


def only(text: str) -> tuple[bool, tuple[float, ...]]:
    (calculation,) = calculations(text)
    return calculation.ok, calculation.sides


@pytest.mark.parametrize(
    "text",
    [
        "4800 × 12 ÷ 16 = 3600",
        "4800*12/16=3600",
        "4800x12/16 = 3600",
        "4800 X 12 / 16 = 3600",
        "3600 − 180 = 3420",
        "3600 - 180 = 3420",
        "3600 × 5% = 180 元",
        "4800 × 12 ÷ 16 − 4800 × 12 ÷ 16 × 5% = 3420",
        "4800 × (16 − 4) ÷ 16 = 3600",
        "4800 ×（16 − 4）÷ 16 = 3600",
        "¥4,800 × 12/16 = ¥3,600",
        "4800 元 × 12 ÷ 16 = 3600 元",
        "应退 3600 元 − 手续费 180 元 = 3420 元",
        "4800 × 12 ÷ 16 = 3600 = 3600",
        "１２/１６ = 75%",
        "4800 ÷ 9 = 533",
        "4800 ÷ 9 = 533.33",
        "5 ÷ 15 ≈ 33%",
        "1.2万 + 3000 = 15000",
    ],
)
def test_correct_calculations_pass(text: str) -> None:
    ok, _ = only(text)
    assert ok


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4800 × 12 ÷ 16 − 4800 × 12 ÷ 16 × 5% = 3500", 3420),
        ("4800*12/16=3700", 3600),
        ("3600 − 180 = 3240 元", 3420),
        ("60 + 120 + 60 = 260 CNY", 240),
        ("4800 × 12 ÷ 16 = 3600 = 3500", 3600),
    ],
)
def test_a_wrong_result_is_caught_with_what_the_left_side_comes_to(
    text: str, expected: float
) -> None:
    (calculation,) = calculations(text)
    assert not calculation.ok
    assert calculation.expected == pytest.approx(expected)


def test_each_calculation_of_a_sentence_is_judged_on_its_own() -> None:
    text = "可退 4800 × 12 ÷ 16 = 3600 元，手续费 3600 × 5% = 180 元，应退 3600 − 180 = 3420 元。"
    assert [c.text for c in calculations(text)] == [
        "4800 × 12 ÷ 16 = 3600 元",
        "3600 × 5% = 180 元",
        "3600 − 180 = 3420 元",
    ]
    assert all(c.ok for c in calculations(text))


def test_sides_in_different_units_are_a_conversion_not_an_equation() -> None:
    (calculation,) = calculations("16 × 45 分钟 = 720 分钟 = 12 小时")
    assert calculation.ok


@pytest.mark.parametrize(
    "text",
    [
        "1 课时 = 45 分钟",  # an equivalence, no operator
        "退费金额 = 实付课程费 × 剩余课时 ÷ 总课时",  # a formula in words
        "2024-03-31",  # a date, no "="
        "4800 ÷ 0 = 1",  # not a number: not judged
        "__import__('os') = 1 + 1",
    ],
)
def test_what_is_not_a_calculation_is_not_judged(text: str) -> None:
    assert all(c.ok for c in calculations(text))


def test_a_rate_with_a_unit_per_unit_reads_as_a_division() -> None:
    ok, sides = only("4800 元/16 课时 = 300 元/课时")
    assert ok
    assert sides == (300, 300)


def test_correct_calculations_produce_their_results_and_intermediates() -> None:
    (calculation,) = calculations("4800 × (16 − 4) ÷ 16 = 3600")
    assert {12, 3600} <= calculation.produced


def test_a_wrong_result_is_not_produced() -> None:
    (calculation,) = calculations("3600 − 180 = 3500")
    assert 3500 not in calculation.produced
    assert calculation.claimed == {3500}


def test_tolerance_is_two_decimals_or_half_a_percent() -> None:
    assert close(533.333, 533.33)
    assert close(3420, 3436)  # 0.47 %
    assert not close(3420, 3440)  # 0.58 %
    assert not close(0.05, 0.06)


@pytest.mark.parametrize(
    "text",
    [
        "(" * 2000 + "1" + ")" * 2000 + " + 1 = 2",
        "-" * 5000 + "1 + 1 = 2",
        "1 + " * 5000 + "1 = 5001",
    ],
)
def test_pathological_input_is_not_judged_and_never_raises(text: str) -> None:
    assert all(c.ok for c in calculations(text))


def test_numbers_too_large_for_a_float_are_not_judged() -> None:
    assert calculations("1" * 400 + " × 2 = 3") == []
