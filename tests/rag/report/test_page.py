"""The report page's sections: long questions cut with the whole text on a click, an empty
section said in one line, a font stack that reaches common CJK fonts."""

from __future__ import annotations

import re

from rag.report.charts import STYLE
from rag.report.page import QUESTION_CHARS, render_page
from rag.report.summary import build_report
from tests.rag.report.records_factory import DAY, NOW, asked


def page(questions: list[str], *, votes: bool = True) -> str:
    report = build_report(
        [asked(q) for q in questions],
        [],
        since=NOW - 7 * DAY,
        until=NOW,
        where="test",
        documents=["a.md"],
        embeddings=None,
        votes=[] if votes else None,
    )
    return render_page(report)


def test_a_long_question_is_cut_and_its_whole_text_opens_on_a_click() -> None:
    long = "请问" + "退费" * 1000 + "怎么算？"
    shown = page([long])
    summary = re.search(
        r"<details class=\"long\"><summary[^>]*>(.*?)</summary>(.*?)</details>", shown
    )
    assert summary is not None
    cut, whole = summary.groups()
    assert len(cut) == QUESTION_CHARS
    assert cut.endswith("…")
    assert whole == long
    visible = shown.split("<script", 1)[0]
    assert visible.count(long) == 2  # the summary's title attribute and the opened details


def test_a_short_question_is_shown_whole_without_details() -> None:
    assert "<details" not in page(["退费怎么算？"])


def test_an_empty_period_says_so_once_per_section() -> None:
    shown = page([]).split("<script", 1)[0]  # the page, without its embedded JSON
    for sentence in (
        "No questions were asked in this period.",
        "No questions, so none unanswered.",
        "No answer cited a document in this period.",
        "No review decisions in this period.",
        "No votes in this period.",
    ):
        assert f'<p class="none">{sentence}</p>' in shown
    assert "p50" not in shown  # no "p50 – s"
    assert "<svg" not in shown  # no empty charts
    assert not re.search(r"<table><tr>(<th>[^<]*</th>)+</tr></table>", shown)  # no bare headers
    assert "Never cited in this period: a.md" in shown


def test_a_period_with_only_answered_questions_says_none_went_unanswered() -> None:
    report = build_report(
        [asked("退费怎么算？", "answer", sources=("a.md",))],
        [],
        since=NOW - DAY,
        until=NOW,
        where="test",
        documents=["a.md"],
        embeddings=None,
        votes=[],
    )
    shown = render_page(report)
    assert "Every question was answered: none was refused or sent to review." in shown
    assert "<h2>Questions per day</h2><figure>" in shown


def test_the_font_stack_names_common_cjk_fonts_before_the_generic_family() -> None:
    family = re.search(r"body\{font-family:([^;]*);", STYLE.replace("\n", ""))
    assert family is not None
    fonts = [name.strip().strip('"') for name in family.group(1).split(",")]
    assert fonts[-1] == "sans-serif"
    for cjk in ("PingFang SC", "Microsoft YaHei", "Noto Sans CJK SC", "Source Han Sans SC"):
        assert cjk in fonts[:-1]
