"""The report's 👎 section: answers voted down, with the passages they cited, in every form."""

from __future__ import annotations

from dataclasses import dataclass

from rag.report.feedback import NOT_READABLE
from rag.report.page import render_page
from rag.report.records import question_key
from rag.report.render import as_csv, as_text
from rag.report.summary import build_report
from tests.rag.report.records_factory import DAY, NOW, asked
from tests.rag.report.test_report_html import Metrics, lookup

PRICE = "流利级的课程费是多少？"
LEAVE = "How many days of annual leave do I get?"


@dataclass(frozen=True)
class Vote:
    """A vote as the vote store keeps it (the fields the report reads)."""

    at: float
    answer: str
    user: str
    verdict: str
    hash: str
    text: str | None = None
    note: str = ""
    sources: tuple[str, ...] = ()
    index_version: str = "v1"


def votes() -> list[Vote]:
    price = {"hash": question_key(PRICE), "text": PRICE, "sources": ("courses.md#2",)}
    leave = {"hash": question_key(LEAVE), "text": None, "sources": ("hr/annual-leave.md#0",)}
    return [
        Vote(NOW - 300, "C1:1.1", "U1", "down", note="价格已经涨到 5200 了", **price),
        Vote(NOW - 200, "C1:1.1", "U2", "down", **price),
        Vote(NOW - 100, "C1:1.1", "U3", "up", **price),
        Vote(NOW - 50, "C2:2.2", "U1", "down", **leave),
        Vote(NOW - 40, "C3:3.3", "U4", "up", **leave),
        Vote(NOW - 9 * DAY, "C4:4.4", "U1", "down", **leave),  # before the period
    ]


def report(with_votes: list[Vote] | None) -> dict[str, object]:
    return build_report(
        [asked(PRICE, "answer", sources=("courses.md",))],
        [],
        since=NOW - 7 * DAY,
        until=NOW,
        where="test",
        documents=None,
        embeddings=None,
        votes=with_votes,
    )


def test_answers_voted_down_are_listed_most_first_with_their_sources_and_notes() -> None:
    feedback = report(votes())["feedback"]
    assert isinstance(feedback, dict)
    assert (feedback["down"], feedback["up"], feedback["answers_down"]) == (3, 2, 2)
    first, second = feedback["answers"]
    assert first["answer"] == "C1:1.1"
    assert (first["down"], first["up"]) == (2, 1)
    assert first["question"] == PRICE
    assert first["sources"] == ["courses.md#2"]
    assert first["notes"] == ["价格已经涨到 5200 了"]
    assert second["question"] is None  # RECORD_QUESTIONS=false: the hash only
    assert second["question_hash"] == question_key(LEAVE)
    assert second["sources"] == ["hr/annual-leave.md#0"]


def test_text_csv_and_page_show_the_same_feedback_as_the_json() -> None:
    data = report(votes())
    text = as_text(data)
    assert "3 👎 on 2 answers, 2 👍" in text
    assert "courses.md#2" in text
    assert "价格已经涨到 5200 了" in text
    csv = as_csv(data)
    assert "feedback,,down,3" in csv
    assert "feedback_answers,C1:1.1,sources,courses.md#2" in csv

    metrics = Metrics()
    metrics.feed(render_page(data))
    shown = {k: v for k, v in metrics.values.items() if k.startswith("feedback.")}
    assert shown["feedback.down"] == "3"
    assert shown["feedback.answers.0.down"] == "2"
    for name, value in shown.items():
        assert value == str(lookup(data, name)), name


def test_a_store_that_cannot_be_read_says_so_instead_of_zero() -> None:
    feedback = report(None)["feedback"]
    assert isinstance(feedback, dict)
    assert feedback["down"] is None
    assert feedback["note"] == NOT_READABLE
    assert NOT_READABLE in as_text(report(None))
