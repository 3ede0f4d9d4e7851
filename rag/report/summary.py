"""Records -> the report's numbers, as one JSON-ready dict (``rag report --json`` prints it).

Every other form (text, CSV, the HTML page and the weekly digest) is rendered from this dict,
so they cannot disagree. Days are UTC calendar days; every day in the period is listed, also
the quiet ones, so a chart's gaps are real.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from rag.lifecycle import Lifecycle
from rag.report.dated import dated_documents
from rag.report.feedback import Vote, feedback_section
from rag.report.groups import SAME_MEANING, group_unanswered
from rag.report.records import QuestionRecord, ReviewRecord

TOP_GROUPS = 20
TOP_DOCUMENTS = 10

VERDICT_NAMES = {"answer": "answered", "refusal": "refused", "unverified": "sent_to_review"}


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def _day(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).date().isoformat()


def _per_day(
    questions: Sequence[QuestionRecord], since: float, until: float
) -> list[dict[str, Any]]:
    first = datetime.fromtimestamp(since, UTC).date()
    last = datetime.fromtimestamp(until, UTC).date()
    days: dict[str, Counter[str]] = {}
    day = first
    while day <= last:
        days[day.isoformat()] = Counter()
        day += timedelta(days=1)
    for record in questions:
        days.setdefault(_day(record.at), Counter())[VERDICT_NAMES[record.verdict]] += 1
    return [
        {
            "day": name,
            "asked": sum(counts.values()),
            **{verdict: counts[verdict] for verdict in VERDICT_NAMES.values()},
        }
        for name, counts in sorted(days.items())
    ]


def _totals(questions: Sequence[QuestionRecord]) -> dict[str, Any]:
    verdicts = Counter(VERDICT_NAMES[record.verdict] for record in questions)
    cached = sum(1 for record in questions if record.cached)
    return {
        "asked": len(questions),
        **{verdict: verdicts[verdict] for verdict in VERDICT_NAMES.values()},
        "from_cache": cached,
        "cache_hit_rate": round(cached / len(questions), 4) if questions else None,
        "answered_by_reviewers_earlier": sum(1 for record in questions if record.reviewed),
    }


def _documents(
    questions: Sequence[QuestionRecord], documents: Sequence[str] | None
) -> dict[str, Any]:
    cited = Counter(
        source for record in questions if record.verdict == "answer" for source in record.sources
    )
    most = [
        {"source": s, "citations": n} for s, n in sorted(cited.items(), key=lambda i: (-i[1], i[0]))
    ]
    never = None if documents is None else sorted(set(documents) - set(cited))
    return {"most_cited": most[:TOP_DOCUMENTS], "never_cited": never}


def _percentile(values: Sequence[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 1) if values else None


def _reviews(reviews: Sequence[ReviewRecord]) -> dict[str, Any]:
    latencies = [r.latency_seconds for r in reviews if r.latency_seconds is not None]
    return {
        "decisions": dict(sorted(Counter(r.verdict for r in reviews).items())),
        "latency_seconds": {
            "count": len(latencies),
            "p50": _percentile(latencies, 50),
            "p90": _percentile(latencies, 90),
            "max": round(max(latencies), 1) if latencies else None,
        },
    }


def build_report(
    questions: Sequence[QuestionRecord],
    reviews: Sequence[ReviewRecord],
    *,
    since: float,
    until: float,
    where: str,
    documents: Sequence[str] | None,
    embeddings: Embeddings | None,
    votes: Sequence[Vote] | None = None,
    similarity: float = SAME_MEANING,
    lifecycles: Mapping[str, Lifecycle] | None = None,
    stale_after_days: int = 0,
) -> dict[str, Any]:
    """``votes``: the vote store's records; ``None`` when it could not be read from here.
    ``lifecycles``: each indexed document's dates (:mod:`rag.report.dated`)."""
    questions = sorted((q for q in questions if since <= q.at <= until), key=lambda q: q.at)
    reviews = [r for r in reviews if since <= r.at <= until]
    groups = group_unanswered(questions, embeddings, similarity=similarity)
    return {
        "since": _iso(since),
        "until": _iso(until),
        "records": where,
        "totals": _totals(questions),
        "per_day": _per_day(questions, since, until),
        "unanswered": [
            {
                "question": group.sample,
                "count": group.count,
                "wordings": list(group.wordings[:5]),
                "verdicts": group.verdicts,
                "last_asked": _iso(group.last_at),
            }
            for group in groups[:TOP_GROUPS]
        ],
        "unanswered_groups": len(groups),
        "feedback": feedback_section(votes, since=since, until=until),
        "documents": _documents(questions, documents)
        | dated_documents(questions, lifecycles, until=until, stale_after_days=stale_after_days),
        "reviews": _reviews(reviews),
    }
