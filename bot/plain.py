"""Result -> plain text, for the local console chat (no Slack, no mrkdwn).

Same content as the Slack reply: the answer, the sources it cites with file, heading path,
link and score, and where a cached or reviewed answer came from.
"""

from __future__ import annotations

from datetime import UTC, datetime

from bot import texts
from rag import Answer, Language, Provenance, Refusal, Result, Unverified


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def provenance_text(provenance: Provenance, language: Language) -> str | None:
    parts: list[str] = []
    if provenance.reviewed_by:
        when = _when(provenance.reviewed_at) if provenance.reviewed_at else "—"
        parts.append(texts.REVIEWED[language].format(reviewer=provenance.reviewed_by, date=when))
    if provenance.cached_at:
        parts.append(texts.CACHED[language].format(date=_when(provenance.cached_at)))
    return " · ".join(parts) or None


def render_plain(result: Result, language: Language) -> str:
    if isinstance(result, Unverified):
        return texts.UNVERIFIED[language]
    lines = [result.text]
    if isinstance(result, Answer):
        for n in result.cited:
            hit = result.hits[n - 1]
            chunk = hit.chunk
            where = " › ".join(part for part in (chunk.source, chunk.heading_path) if part)
            link = f"  {chunk.link}" if chunk.link else ""
            lines.append(f"  [{n}] {chunk.title or chunk.source} — {where} ({hit.score:.2f}){link}")
    if not isinstance(result, Refusal) or result.provenance != Provenance():
        line = provenance_text(result.provenance, language)
        if line:
            lines.append(f"  ({line})")
    return "\n".join(lines)
