"""Result -> Slack messages (Block Kit), as pure functions tested without Slack.

An answer becomes one or more messages: the first replaces the "Looking it up…" placeholder
(``chat.update``, which rejects text over 4,000 characters), the rest are posted in the same
thread. Each message holds sections of at most 3,000 characters whose total stays under the
recommended 4,000, so nothing is truncated and nothing dropped; the ``text`` fallback (the
notification and screen-reader text) is always the message's own content. The last message
carries the citation buttons — one per cited source — and the provenance context line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot import texts
from bot.ports import Answered
from bot.slack import source_ref
from bot.slack.feedback_buttons import feedback_block
from bot.slack.limits import ACTIONS_ELEMENTS, BUTTON_TEXT, MESSAGE_TEXT, SECTION_TEXT, slack_date
from bot.slack.mrkdwn import escape, split_text, to_mrkdwn
from bot.sources import date_only, with_date
from rag import Answer, Hit, Language, Provenance, Refusal

SOURCE_ACTION_PREFIX = "citebot_source_"
"""Citation buttons' action_id: prefix + source number (unique within a message)."""

Block = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SlackMessage:
    text: str
    blocks: list[Block] = field(default_factory=list)


def section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def context(text: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text}]}


def plain_message(text: str) -> SlackMessage:
    """A one-sentence reply (help, failure, notices): escaped, one section."""
    escaped = escape(text)
    return SlackMessage(text=escaped, blocks=[section(escaped)])


def source_label(n: int, hit: Hit, language: Language = "en") -> str:
    """``[1] 退费与转班制度 · 三、退费计算口径 · 2025-03-01``, cut to the button limit (the
    title and section are cut, never the date or the status of a source not current)."""
    chunk = hit.chunk
    name = chunk.title or chunk.source.rsplit("/", 1)[-1]
    label = f"[{n}] {name}" + (f" · {chunk.heading[-1]}" if chunk.heading else "")
    return with_date(label, date_only(chunk, language), BUTTON_TEXT)


def source_buttons(
    hits: Sequence[Hit], cited: Sequence[int], language: Language = "en"
) -> list[Block]:
    """Actions blocks with one button per cited source number."""
    buttons = [
        {
            "type": "button",
            "action_id": f"{SOURCE_ACTION_PREFIX}{n}",
            "text": {
                "type": "plain_text",
                "text": source_label(n, hits[n - 1], language),
                "emoji": False,
            },
            "value": source_ref.encode(hits[n - 1]),
        }
        for n in cited
        if 1 <= n <= len(hits)
    ]
    return [
        {"type": "actions", "block_id": f"citebot_sources_{start}", "elements": group}
        for start in range(0, len(buttons), ACTIONS_ELEMENTS)
        if (group := buttons[start : start + ACTIONS_ELEMENTS])
    ]


def provenance_line(provenance: Provenance, language: Language) -> str | None:
    parts: list[str] = []
    if provenance.reviewed_by:
        when = slack_date(provenance.reviewed_at) if provenance.reviewed_at else "—"
        reviewer = f"<@{provenance.reviewed_by}>"
        parts.append(texts.REVIEWED[language].format(reviewer=reviewer, date=when))
    if provenance.cached_at:
        parts.append(texts.CACHED[language].format(date=slack_date(provenance.cached_at)))
    return " · ".join(parts) or None


def _pack(body: str) -> list[list[str]]:
    """Sections (≤ SECTION_TEXT) grouped into messages (≤ MESSAGE_TEXT in total)."""
    messages: list[list[str]] = []
    size = MESSAGE_TEXT + 1
    for piece in split_text(body, SECTION_TEXT):
        if size + len(piece) > MESSAGE_TEXT:
            messages.append([])
            size = 0
        messages[-1].append(piece)
        size += len(piece)
    return messages


def _messages(body: str, tail: list[Block]) -> list[SlackMessage]:
    groups = _pack(body)
    out: list[SlackMessage] = []
    for position, group in enumerate(groups):
        blocks = [section(piece) for piece in group if piece.strip()]
        if position == len(groups) - 1:
            blocks += tail
        out.append(SlackMessage(text="".join(group), blocks=blocks))
    return out


def render_answer(
    result: Answer, language: Language, answered: Answered | None = None
) -> list[SlackMessage]:
    """The answer in mrkdwn, split as needed; buttons, provenance and the feedback buttons
    (``answered``: what a vote needs to withdraw it) on the last message."""
    tail = source_buttons(result.hits, result.cited, language)
    line = provenance_line(result.provenance, language)
    if line:
        tail.append(context(line))
    tail.append(feedback_block(result, answered))
    return _messages(to_mrkdwn(result.text), tail)


def render_refusal(
    result: Refusal, extra_elements: Sequence[Block] = (), *, language: Language | None = None
) -> list[SlackMessage]:
    """The fixed refusal sentence, plus the review desk's buttons when given."""
    tail: list[Block] = []
    if extra_elements:
        tail.append(
            {"type": "actions", "block_id": "citebot_refusal", "elements": list(extra_elements)}
        )
    if language is not None:
        line = provenance_line(result.provenance, language)
        if line:
            tail.append(context(line))
    return _messages(escape(result.text), tail)
