"""A clicked citation -> the passage as it is in the index now, shown to the clicker.

The button carries only a small id (:mod:`bot.slack.source_ref`); where the passage is now is
decided platform-neutrally (:func:`bot.sources.find`); this module renders it for Slack.
"""

from __future__ import annotations

from bot import texts
from bot.relevance import relevance
from bot.slack.limits import MESSAGE_TEXT
from bot.slack.mrkdwn import escape
from bot.slack.reply import Block, SlackMessage, context, section
from bot.sources import Found, SourceRef, dated
from bot.sources import find as find  # re-exported: the click listener imports it here
from rag import Chunk, Language

PASSAGE_LIMIT = 2800
"""Shown passage, within one section (3000) and an ephemeral message's 4,000 characters."""


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
        f"*{texts.SOURCE_SCORE[language]}*\n{relevance(ref.score)}/100",
    ]
    when = dated(chunk, language)
    if when:
        fields.append(f"*{texts.SOURCE_UPDATED[language]}*\n{escape(when)}")
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


def not_here_message(language: Language) -> SlackMessage:
    """For a click where the passage's document may not be seen: nothing of it, not its name."""
    notice = escape(texts.SOURCE_NOT_HERE[language])
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
