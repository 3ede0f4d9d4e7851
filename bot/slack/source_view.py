"""A clicked citation -> the passage as it is in the index now, shown to the clicker.

The button carries only a small id (:mod:`bot.slack.source_ref`); the passage comes from the index.
If the chunk still has the content hash the answer was built from, it is shown as cited (also
when reindexing moved it to another position). If it changed, the clicker is told so and sees
the current text of that section; if its document is gone, they are told that.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from bot import texts
from bot.slack.limits import MESSAGE_TEXT
from bot.slack.mrkdwn import escape
from bot.slack.reply import Block, SlackMessage, context, section
from bot.slack.source_ref import SourceRef, same_version
from rag import Chunk, Language

PASSAGE_LIMIT = 2800
"""Shown passage, within one section (3000) and an ephemeral message's 4,000 characters."""

State = Literal["current", "changed", "gone"]


@dataclass(frozen=True, slots=True)
class Found:
    state: State
    chunks: tuple[Chunk, ...]


def find(ref: SourceRef, chunk: Chunk | None, all_chunks: Iterable[Chunk]) -> Found:
    """Where the cited passage is now."""
    if chunk is not None and same_version(ref, chunk.hash):
        return Found("current", (chunk,))
    source = ref.chunk_id.rsplit("#", 1)[0]
    same_source = [c for c in all_chunks if c.source == source]
    for candidate in same_source:
        if same_version(ref, candidate.hash):
            return Found("current", (candidate,))
    if chunk is None:
        return Found("gone", ())
    in_section = tuple(c for c in same_source if c.section == chunk.section) or (chunk,)
    return Found("changed", tuple(sorted(in_section, key=lambda c: c.n)))


def _quote(text: str) -> str:
    if len(text) > PASSAGE_LIMIT:
        text = text[: PASSAGE_LIMIT - 1].rstrip() + "…"
    return "\n".join(f">{escape(line)}" for line in text.splitlines() or [""])


def _title(n: int, chunk: Chunk | None, ref: SourceRef, language: Language) -> str:
    header = texts.SOURCE_HEADER[language].format(n=n)
    name = (chunk.title or chunk.source) if chunk else ref.chunk_id.rsplit("#", 1)[0]
    return f"*{escape(header)}* · {escape(name)}"


def _details(chunk: Chunk, ref: SourceRef, language: Language) -> Block:
    fields = [
        f"*{texts.SOURCE_FILE[language]}*\n`{escape(chunk.source)}`",
        f"*{texts.SOURCE_SECTION[language]}*\n{escape(chunk.heading_path or '—')}",
        f"*{texts.SOURCE_SCORE[language]}*\n{ref.score:.2f}",
    ]
    if chunk.link:
        fields.append(
            f"*{texts.SOURCE_LINK[language]}*\n<{escape(chunk.link)}|{escape(chunk.link)}>"
        )
    return {"type": "section", "fields": [{"type": "mrkdwn", "text": f} for f in fields]}


def source_message(n: int, ref: SourceRef, found: Found, language: Language) -> SlackMessage:
    first = found.chunks[0] if found.chunks else None
    title = _title(n, first, ref, language)
    blocks: list[Block] = [section(title)]
    if found.state == "gone" or first is None:
        notice = texts.SOURCE_GONE[language]
        blocks.append(context(escape(notice)))
        return SlackMessage(text=f"{title}\n{escape(notice)}", blocks=blocks)
    if found.state == "changed":
        blocks.append(context(escape(texts.SOURCE_CHANGED[language])))
    passage = "\n".join(chunk.text for chunk in found.chunks)
    quoted = _quote(passage)
    blocks += [section(quoted), _details(first, ref, language)]
    return SlackMessage(text=f"{title}\n{quoted}"[:MESSAGE_TEXT], blocks=blocks)


def unreadable_message(language: Language) -> SlackMessage:
    notice = escape(texts.SOURCE_UNREADABLE[language])
    return SlackMessage(text=notice, blocks=[section(notice)])


def as_modal(message: SlackMessage, language: Language) -> dict[str, object]:
    """The same content as a modal, for when an ephemeral message cannot be posted."""
    title = "出处" if language == "zh" else "Source"
    return {
        "type": "modal",
        "title": {"type": "plain_text", "text": title},
        "close": {"type": "plain_text", "text": "关闭" if language == "zh" else "Close"},
        "blocks": message.blocks,
    }
