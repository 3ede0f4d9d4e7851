"""Claim support is read from the best window of a cited passage, however long the passage."""

from __future__ import annotations

from rag.check.source_numbers import number_readings, number_values
from rag.check.support import Passage, content_words

PAGE = " ".join(
    [f"Section {n} describes the office plants on floor {n}." for n in range(400)]
    + [
        "Managers approve annual leave requests.",
        "Dying batteries are replaced every spring by the facilities team.",
        "Payroll pays pensions monthly.",
    ]
    + [f"Appendix {n} lists the parking rules." for n in range(400)]
)


def test_the_pre_filtered_best_window_is_the_one_a_full_reading_finds() -> None:
    passage = Passage(PAGE, "en")
    for claim in (
        "Managers approve leave, and payroll pays the pensions.",
        "The facilities team replaces dying batteries each spring.",
        "Nothing here is about submarines or volcanoes.",
    ):
        wanted = content_words(claim, "en")
        full = max(passage.windows(), key=lambda window: len(window.held(wanted)))
        found = Passage(PAGE, "en").best(wanted)
        assert found.held(wanted) == full.held(wanted)
        assert found.text == full.text


def test_a_long_passage_is_stemmed_only_where_the_claim_s_words_start() -> None:
    passage = Passage(PAGE, "en")
    passage.best(content_words("The facilities team replaces dying batteries.", "en"))
    assert len(passage._stems) < 20  # of 803 sentences


def test_both_number_readings_come_from_one_pass() -> None:
    source = "3. 流利级\n第三次起收费，每次 50 元。Level 2 costs 4,800 yuan."
    amounts, ranks = number_readings(source)
    assert amounts == number_values(source) == {50, 4800}
    assert ranks == number_values(source, ordinals=True)
    assert {2, 3} <= ranks
