"""A sentence quoted word for word from the passage it cites is never flagged as contradicting
it; a part of a sentence that drops its negation still is (:mod:`rag.check.verbatim`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.check.citations import check
from rag.check.verbatim import Quote, SourceSentences
from rag.ingest.loaders import load_folder
from rag.ingest.splitter import Splitter
from rag.results import Hit
from tests.rag.factories import make_hit

DOCS = Path(__file__).resolve().parents[3] / "docs"

CONTRADICTING = frozenset(
    {
        "modality_mismatch",
        "ungrounded_number",
        "misattributed_number",
        "wrong_arithmetic",
        "unsupported_claim",
        "ungrounded_name",
        "unrelated_source",
    }
)
"""What says a sentence is not what its source says (structure, such as an uncited line,
is another matter)."""


def kinds(answer: str, source: str) -> list[str]:
    return [problem.kind for problem in check(answer, [make_hit(source, heading=())]).problems]


@pytest.mark.parametrize(
    ("source", "answer"),
    [
        (
            "- 修复 limit-count 插件在集群模式下无法读取配置的问题\n"
            "- 修复 limit-count 插件在集群模式下读取配置过慢的问题",
            "- 修复 limit-count 插件在集群模式下读取配置过慢的问题 [1]",
        ),
        (
            "- Staff cannot approve their own travel.\n"
            "- Staff can approve travel for their direct reports.",
            "- Staff can approve travel for their direct reports. [1]",
        ),
    ],
)
def test_a_verbatim_sentence_beside_a_negated_neighbour_passes(source: str, answer: str) -> None:
    assert kinds(answer, source) == []


def test_a_quote_that_drops_the_negation_of_its_sentence_is_still_flagged() -> None:
    source = "Staff say that no employee may work remotely on Fridays during the audit."
    answer = "Employee may work remotely on Fridays during the audit. [1]"
    assert "modality_mismatch" in kinds(answer, source)


def test_a_changed_sentence_is_judged_as_before() -> None:
    source = "Unused leave is not paid out when you leave the company."
    answer = "Unused leave is paid out when you leave the company. [1]"
    assert "modality_mismatch" in kinds(answer, source)


def test_a_source_sentence_is_found_as_the_checker_reads_answers() -> None:
    read = SourceSentences("- 退费按剩余课时计算。\n\n**Unused leave** expires on 31 March.")
    assert read.quote("退费按剩余课时计算") == Quote(verbatim=True)  # list marker, 。
    assert read.quote("**UNUSED  leave** expires on 31 March") == Quote(verbatim=True)
    assert read.quote("expires on 31 March") == Quote(
        sentence="**Unused leave** expires on 31 March."
    )
    assert read.quote("退费按剩余课时计算两次") == Quote()
    assert read.quote("on") == Quote()  # too short to say which sentence it is part of


def quoted_by_line(text: str) -> str:
    """The passage word for word, every line cited, so every rule reads every sentence."""
    return "\n".join(f"{line} [1]" if line.strip() else line for line in text.splitlines())


def test_every_passage_of_docs_quoted_whole_passes() -> None:
    documents, _ = load_folder(DOCS)
    passages = [chunk for doc in documents for chunk in Splitter().split(doc)]
    assert len(passages) > 30
    flagged = []
    for chunk in passages:
        hits = [Hit(chunk, score=1.0)]
        for answer in (f"{chunk.text} [1]", quoted_by_line(chunk.text)):
            found = [p for p in check(answer, hits).problems if p.kind in CONTRADICTING]
            flagged += [(chunk.source, p.kind, p.sentence) for p in found]
    assert flagged == []
