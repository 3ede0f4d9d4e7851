"""The report as text for a terminal and as CSV for a spreadsheet (both from the one dict).

CSV is long-form — ``section,item,metric,value`` — so every part of the report fits one table
and a pivot table can turn any section back into columns.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from rag.report.dated import dated_lines

SAMPLE_CHARS = 60


def _short(text: str | None, limit: int = SAMPLE_CHARS) -> str:
    if text is None:
        return "(text not kept: RECORD_QUESTIONS=false)"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:g} s"


def as_text(report: dict[str, Any]) -> str:
    totals = report["totals"]
    lines = [
        f"citebot report {report['since']} – {report['until']} (records: {report['records']})",
        f"questions: {totals['asked']} asked — {totals['answered']} answered, "
        f"{totals['refused']} refused, {totals['sent_to_review']} sent to review; "
        f"cache hit rate {_rate(totals['cache_hit_rate'])}",
        "",
        *_per_day_lines(report),
    ]
    lines += ["", f"unanswered, grouped by meaning ({report['unanswered_groups']} groups):"]
    if not report["unanswered"]:
        lines.append("  none")
    for group in report["unanswered"]:
        also = [w for w in group["wordings"][1:3]]
        extra = f"   (also: {' / '.join(_short(w, 30) for w in also)})" if also else ""
        lines.append(f"  {group['count']:>4}×  {_short(group['question'])}{extra}")
    documents = report["documents"]
    lines += ["", "most cited documents:"]
    lines += [f"  {d['citations']:>4}  {d['source']}" for d in documents["most_cited"]] or [
        "  none"
    ]
    never = documents["never_cited"]
    if never is not None:
        lines.append(f"never cited ({len(never)}): {', '.join(never) if never else 'none'}")
    lines += dated_lines(documents)
    reviews = report["reviews"]
    lines += ["", *_review_lines(reviews), "", *_feedback_lines(report["feedback"])]
    return "\n".join(lines)


def _per_day_lines(report: dict[str, Any]) -> list[str]:
    if not report["totals"]["asked"]:
        return ["per day: no questions in this period"]
    return ["per day:            asked  answered  refused  review"] + [
        f"  {d['day']}  {d['asked']:>10}  {d['answered']:>8}  {d['refused']:>7}  "
        f"{d['sent_to_review']:>6}"
        for d in report["per_day"]
    ]


def _review_lines(reviews: dict[str, Any]) -> list[str]:
    if not reviews["decisions"]:
        return ["review decisions: none in this period"]
    decisions = ", ".join(f"{k} {v}" for k, v in reviews["decisions"].items())
    latency = reviews["latency_seconds"]
    return [
        f"review decisions: {decisions}",
        f"review latency: p50 {_seconds(latency['p50'])}, p90 {_seconds(latency['p90'])}, "
        f"max {_seconds(latency['max'])} ({latency['count']} decisions)",
    ]


def _feedback_lines(feedback: dict[str, Any]) -> list[str]:
    if feedback["down"] is None:
        return [f"feedback: {feedback['note']}"]
    lines = [
        f"feedback: {feedback['down']} 👎 on {feedback['answers_down']} answers, "
        f"{feedback['up']} 👍; answers voted down, most first:"
    ]
    for answer in feedback["answers"]:
        sources = ", ".join(answer["sources"]) or "no sources"
        lines.append(f"  {answer['down']:>4}👎  {_short(answer['question'])}  [{sources}]")
        lines += [f"        “{_short(note)}”" for note in answer["notes"][:3]]
    if not feedback["answers"]:
        lines.append("  none")
    return lines


def csv_rows(report: dict[str, Any]) -> list[tuple[str, str, str, object]]:
    rows: list[tuple[str, str, str, object]] = []
    rows += [("totals", "", metric, value) for metric, value in report["totals"].items()]
    for day in report["per_day"]:
        rows += [("per_day", day["day"], m, v) for m, v in day.items() if m != "day"]
    for group in report["unanswered"]:
        rows.append(("unanswered", group["question"] or "", "count", group["count"]))
    documents = report["documents"]
    rows += [
        ("most_cited", d["source"], "citations", d["citations"]) for d in documents["most_cited"]
    ]
    rows += [("never_cited", source, "citations", 0) for source in documents["never_cited"] or []]
    rows += [
        ("cited_after_expiry", d["source"], "citations", d["citations"])
        for d in documents["cited_after_expiry"]
    ]
    rows += [("stale", d["source"], "updated", d["updated"]) for d in documents["stale"]]
    reviews = report["reviews"]
    rows += [("review_decisions", k, "count", v) for k, v in reviews["decisions"].items()]
    rows += [("review_latency_seconds", "", k, v) for k, v in reviews["latency_seconds"].items()]
    feedback = report["feedback"]
    rows += [("feedback", "", k, feedback[k]) for k in ("down", "up", "answers_down")]
    for answer in feedback["answers"]:
        item = answer["answer"]
        rows.append(("feedback_answers", item, "down", answer["down"]))
        rows.append(("feedback_answers", item, "question", answer["question"]))
        rows.append(("feedback_answers", item, "sources", " ".join(answer["sources"])))
    return rows


def as_csv(report: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("section", "item", "metric", "value"))
    for section, item, metric, value in csv_rows(report):
        writer.writerow((section, item, metric, "" if value is None else value))
    return out.getvalue()
