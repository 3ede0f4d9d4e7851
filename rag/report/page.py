"""The sections of the HTML report page, each a chart with a caption and its table."""

from __future__ import annotations

import html
import json
from typing import Any

from rag.report.charts import STYLE, bars_chart, metric, numbers, per_day_chart, table

TOP_BARS = 10
QUESTION_CHARS = 140
"""A question longer than this is cut on the page; its full text opens on a click."""


def question_cell(text: str | None) -> str:
    """A question as a table shows it: a 2,000-character question must not fill the page."""
    if text is None:
        return "(text not kept)"
    if len(text) <= QUESTION_CHARS:
        return html.escape(text)
    cut = text[: QUESTION_CHARS - 1].rstrip() + "…"
    return (
        f'<details class="long"><summary title="{html.escape(text)}">{html.escape(cut)}</summary>'
        f"{html.escape(text)}</details>"
    )


def _none(title: str, sentence: str) -> str:
    """An empty section: its heading and one line saying so (no empty chart, no header-only
    table, no "p50 – s")."""
    return f'<h2>{title}</h2><p class="none">{html.escape(sentence)}</p>'


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{html.escape(caption)}</figcaption></figure>"


def _days(report: dict[str, Any]) -> str:
    if not report["totals"]["asked"]:
        return _none("Questions per day", "No questions were asked in this period.")
    rows = [
        [
            html.escape(d["day"]),
            metric(f"per_day.{d['day']}.asked", d["asked"]),
            str(d["answered"]),
            str(d["refused"]),
            str(d["sent_to_review"]),
        ]
        for d in report["per_day"]
    ]
    caption = (
        "Questions asked per day, each bar split into answered (green), refused (grey) and "
        "sent to review (blue)."
    )
    listing = table(["day", "asked", "answered", "refused", "sent to review"], rows)
    chart = per_day_chart(report["per_day"])
    return f"<h2>Questions per day</h2>{_figure(chart, caption)}{listing}"


def _unanswered(report: dict[str, Any]) -> str:
    groups = report["unanswered"][:TOP_BARS]
    if not groups:
        sentence = (
            "Every question was answered: none was refused or sent to review."
            if report["totals"]["asked"]
            else "No questions, so none unanswered."
        )
        return _none("Unanswered questions", sentence)
    chart = bars_chart([g["count"] for g in groups], "times asked", "#c62828")
    rows = [
        [
            f"#{n}",
            metric(f"unanswered.{n - 1}.count", g["count"]),
            question_cell(g["question"]),
            " / ".join(question_cell(w) for w in g["wordings"][1:3]),
        ]
        for n, g in enumerate(groups, start=1)
    ]
    caption = (
        "The questions the documents did not answer (refused or sent to review), grouped by "
        "meaning, most asked first: the documents to write next."
    )
    listing = table(["", "asked", "question", "also asked as"], rows)
    return f"<h2>Unanswered questions</h2>{_figure(chart, caption)}{listing}"


def _documents(report: dict[str, Any]) -> str:
    cited = report["documents"]["most_cited"][:TOP_BARS]
    chart = bars_chart([d["citations"] for d in cited], "answers citing it", "#2e7d32")
    rows = [
        [
            f"#{n}",
            metric(f"documents.most_cited.{n - 1}.citations", d["citations"]),
            html.escape(d["source"]),
        ]
        for n, d in enumerate(cited, start=1)
    ]
    never = report["documents"]["never_cited"]
    listed = "unknown (no index found)" if never is None else ", ".join(never) or "none"
    if not cited:
        return _none("Documents", "No answer cited a document in this period.") + (
            f"<p>Never cited in this period: {html.escape(listed)}</p>" if never else ""
        )
    caption = "The documents answers cited most, with how many answers cited each."
    return (
        f"<h2>Documents</h2>{_figure(chart, caption)}{table(['', 'answers', 'document'], rows)}"
        f"<p>Never cited in this period: {html.escape(listed)}</p>"
    )


def _reviews(report: dict[str, Any]) -> str:
    reviews = report["reviews"]
    decisions = list(reviews["decisions"].items())
    if not decisions:
        return _none("Reviews", "No review decisions in this period.")
    chart = bars_chart([count for _, count in decisions], "decisions", "#1565c0")
    rows = [
        [f"#{n}", html.escape(name), metric(f"reviews.decisions.{name}", count)]
        for n, (name, count) in enumerate(decisions, start=1)
    ]
    latency = reviews["latency_seconds"]
    waits = ", ".join(
        f"{name} {metric(f'reviews.latency_seconds.{name}', latency[name])} s"
        for name in ("p50", "p90", "max")
    )
    caption = "Reviewers' decisions on drafts and knowledge gaps, by outcome."
    return (
        f"<h2>Reviews</h2>{_figure(chart, caption)}{table(['', 'decision', 'count'], rows)}"
        f"<p>Time from question to decision: {waits}.</p>"
    )


def _feedback(report: dict[str, Any]) -> str:
    feedback = report["feedback"]
    if feedback["down"] is None:
        return _none("Answers voted down", feedback["note"])
    if not feedback["down"] and not feedback["up"]:
        return _none("Answers voted down", "No votes in this period.")
    rows = [
        [
            f"#{n}",
            metric(f"feedback.answers.{n - 1}.down", a["down"]),
            question_cell(a["question"]),
            html.escape(", ".join(a["sources"])),
            html.escape(" / ".join(a["notes"][:3])),
        ]
        for n, a in enumerate(feedback["answers"], start=1)
    ]
    # Words beside the emoji: a browser without an emoji font still reads the numbers right.
    follows = (
        "Answers voted down, most first, with the passages they cited and what people said "
        "was wrong:"
        if rows
        else "No answer was voted down."
    )
    summary = (
        f"<p>{metric('feedback.down', feedback['down'])} down votes (👎) on "
        f"{metric('feedback.answers_down', feedback['answers_down'])} answers, "
        f"{metric('feedback.up', feedback['up'])} up votes (👍). {follows}</p>"
    )
    if not rows:
        return f"<h2>Answers voted down</h2>{summary}"
    listing = table(["", "down votes", "question", "cited passages", "what was wrong"], rows)
    return f"<h2>Answers voted down</h2>{summary}{listing}"


def render_page(report: dict[str, Any]) -> str:
    data = json.dumps(report, ensure_ascii=False).replace("</", "<\\/")
    title = f"citebot report {report['since'][:10]} – {report['until'][:10]}"
    return (
        "<!doctype html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>"
        f"<p>Records: {html.escape(report['records'])}</p>{numbers(report)}"
        f"{_days(report)}{_unanswered(report)}{_documents(report)}{_reviews(report)}"
        f"{_feedback(report)}"
        f'<script type="application/json" id="report-data">{data}</script></body></html>\n'
    )
