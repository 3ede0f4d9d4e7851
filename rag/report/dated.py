"""Cited documents whose dates say they need a look: past their ``expires`` date, or not updated
for ``STALE_AFTER_DAYS``.

Retrieval already leaves out a document past its ``expires`` date (:mod:`rag.search.in_force`),
so one cited after it is an answer given before the index knew the date (a cached answer,
an older version of the bot) and an answer to check. A rule nobody has touched for a year may
still be right, but it is where an outdated answer comes from: the list says which such
documents people are actually being answered from, most cited first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from rag.lifecycle import Lifecycle
from rag.report.records import QuestionRecord


def _day(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).date().isoformat()


def dated_documents(
    questions: Sequence[QuestionRecord],
    lifecycles: Mapping[str, Lifecycle] | None,
    *,
    until: float,
    stale_after_days: int,
) -> dict[str, Any]:
    """``cited_after_expiry``: per document, the answers that cited it after its ``expires``
    date; ``stale``: the cited documents last updated more than ``stale_after_days`` before
    ``until`` (0: not listed). Empty lists when there is no index to read the dates from."""
    if lifecycles is None:
        return {"cited_after_expiry": [], "stale": [], "stale_after_days": stale_after_days}
    late: Counter[str] = Counter()
    last: dict[str, float] = {}
    cited: Counter[str] = Counter()
    for record in questions:
        if record.verdict != "answer":
            continue
        for source in record.sources:
            cited[source] += 1
            life = lifecycles.get(source)
            if life is not None and life.expires and life.expires < _day(record.at):
                late[source] += 1
                last[source] = max(last.get(source, 0.0), record.at)
    expired = [
        {
            "source": source,
            "expires": lifecycles[source].expires,
            "citations": count,
            "last_cited": _day(last[source]),
        }
        for source, count in sorted(late.items(), key=lambda item: (-item[1], item[0]))
    ]
    stale: list[dict[str, Any]] = []
    if stale_after_days > 0:
        before = datetime.fromtimestamp(until, UTC).date() - timedelta(days=stale_after_days)
        for source, count in sorted(cited.items(), key=lambda item: (-item[1], item[0])):
            updated = lifecycles.get(source, Lifecycle()).updated
            if updated and date.fromisoformat(updated) < before:
                stale.append({"source": source, "updated": updated, "citations": count})
    return {"cited_after_expiry": expired, "stale": stale, "stale_after_days": stale_after_days}


def dated_lines(dated: Mapping[str, Any]) -> list[str]:
    """The text report's lines (nothing when there is nothing to list)."""
    lines: list[str] = []
    if dated["cited_after_expiry"]:
        lines.append("cited after their expires date:")
        lines += [
            f"  {d['citations']:>4}  {d['source']} (expired {d['expires']}, last cited "
            f"{d['last_cited']})"
            for d in dated["cited_after_expiry"]
        ]
    if dated["stale"]:
        lines.append(f"cited but not updated for {dated['stale_after_days']} days:")
        lines += [
            f"  {d['citations']:>4}  {d['source']} (updated {d['updated']})" for d in dated["stale"]
        ]
    return lines
