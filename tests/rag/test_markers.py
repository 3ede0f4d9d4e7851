"""The one citation-marker grammar: every form the README promises, read the same everywhere."""

from __future__ import annotations

import pytest

from rag.check.leak import recites_rules
from rag.generate.prompt import SYSTEM_RULES
from rag.markers import (
    MARKER,
    MAX_RANGE,
    cited_numbers,
    first_cited_order,
    renumbered,
    without_markers,
)
from rag.messages import REFUSAL, is_refusal_text
from rag.results import Answer
from tests.rag.factories import make_hit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("共四级[1]。", [1]),
        ("A[1]. B[2][3].", [1, 2, 3]),
        ("共四级[1, 2]。", [1, 2]),
        ("共四级[1，2]、[3; 4]。", [1, 2, 3, 4]),
        ("共四级[1-3]。", [1, 2, 3]),
        ("共四级[1–3]、[5~6]、[7～8]、[9—10]。", [1, 2, 3, 5, 6, 7, 8, 9, 10]),
        ("共四级[3-1]。", [1, 2, 3]),
        ("共四级［2］，【3】。", [2, 3]),
        ("共四级【1，2】、[2、4]。", [1, 2, 4]),
        ("共四级［１］、【２-３】。", [1, 2, 3]),
        ("共四级[ 1 , 2 ]。", [1, 2]),
        ("no markers here, just [a link](x), [note] and [1.5]", []),
    ],
)
def test_cited_numbers_reads_every_marker_form(text: str, expected: list[int]) -> None:
    assert cited_numbers(text) == expected


def test_a_range_wider_than_max_range_is_read_as_its_two_ends() -> None:
    assert cited_numbers(f"[1-{1 + MAX_RANGE}]") == list(range(1, 2 + MAX_RANGE))
    assert cited_numbers(f"[1-{2 + MAX_RANGE}]") == [1, 2 + MAX_RANGE]


FORMS = ["[1]", "[1][2]", "[1, 2]", "[1-2]", "［1］", "【1】", "【1，2】"]
"""The forms the README promises."""


@pytest.mark.parametrize("marker", FORMS)
def test_every_reader_of_answers_sees_the_same_markers(marker: str) -> None:
    assert "".join(match.group() for match in MARKER.finditer(marker)) == marker
    assert without_markers(f"A{marker}B").split() == ["A", "B"]
    # The refusal with markers sprinkled in is still the refusal.
    assert is_refusal_text(REFUSAL["zh"].replace("，", f"{marker}，"))
    # Answer.cited reads the same grammar as the checker.
    answer = Answer("q", f"共四级{marker}。", (make_hit("a"), make_hit("b")))
    assert answer.cited == tuple(cited_numbers(marker))


def test_markers_do_not_hide_a_recital_of_the_rules() -> None:
    rules = SYSTEM_RULES.split("\n\n")[0]
    sprinkled = " ".join(f"{word}【1，2】" for word in rules.split())
    assert recites_rules(rules)
    assert recites_rules(sprinkled)


def test_citations_are_renumbered_in_the_order_they_are_first_cited() -> None:
    text = "Rule [3]. Fee [3]. Example [5] and [3, 5]."

    assert first_cited_order(text) == [3, 5]
    assert renumbered(text, {3: 1, 5: 2, 1: 3}) == "Rule [1]. Fee [1]. Example [2] and [1, 2]."
