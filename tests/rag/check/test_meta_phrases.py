"""Phrases that speak of the sources, not the subject, are not claims a source must hold."""

from __future__ import annotations

import pytest

from rag.check.citations import check
from rag.check.cited import CitedSources
from rag.check.claims import judge
from rag.check.meta_phrases import without_meta
from rag.check.support import content_words
from tests.rag.factories import LEAVE_TEXT, make_hit


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Based on the given context, leave expires in March.", "leave expires in March"),
        ("According to the provided passages, staff may carry over leave.", "staff may carry"),
        ("There is no mention of Zeus in the given contexts.", "Zeus"),
        ("根据提供的资料，年假在三月底清零。", "年假在三月底清零"),
    ],
)
def test_the_phrase_about_the_sources_is_dropped_and_the_claim_kept(text: str, kept: str) -> None:
    stripped = without_meta(text)
    assert kept in stripped
    assert not {"context", "provid", "passag", "mention", "资料"} & content_words(stripped, "en")


def test_a_source_as_a_subject_is_not_a_phrase_about_the_sources() -> None:
    text = "The heat source of the building is a gas boiler."
    assert without_meta(text) == text


def test_a_sentence_framed_by_its_sources_has_the_support_of_its_claim() -> None:
    """Support is the share of a sentence's content words its source holds; the source never
    says "the given context", so those words would only lower it."""
    sources = CitedSources([make_hit(LEAVE_TEXT)])
    plain = judge("Unused leave expires in March.", [1], sources)
    framed = judge("Based on the given context, unused leave expires in March.", [1], sources)
    assert plain.support == 1.0
    assert framed.support == plain.support


def test_a_numbered_passage_is_no_name_and_its_number_no_amount() -> None:
    """Models prompted with numbered contexts cite in words; "Passage ID 3" names nobody."""
    source = "The authors declare that there is no conflict of interests regarding publication."
    text = "The authors of Passage ID 3 declare that there is no conflict of interests [1]."
    assert check(text, [make_hit(source)]).ok
    assert not check("The authors of Passage Kowalski declare it [1].", [make_hit(source)]).ok
