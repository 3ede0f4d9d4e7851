"""Results -> Feishu cards (JSON 2.0), as pure functions tested without Feishu.

Every card says ``config.update_multi: true``: the progress card is later replaced by the
answer, review cards by their decision, and only shared cards can be patched.

Text that comes from people or documents (questions, answers, passages, drafts) goes into
``plain_text`` elements, never ``markdown``: in markdown a document or a model could write
``<at id=all></at>`` and notify a whole group, or forge links. Only our own fixed sentences use
markdown. An answer longer than one card holds is split over several cards; the last one
carries one button per cited source (the click shows the passage) and the provenance line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from bot import texts
from bot.sources import date_only, with_date
from rag import Answer, Hit, Language, Provenance, Refusal

Card = dict[str, Any]
Element = dict[str, Any]

MAX_TEXT_PER_CARD = 6000
"""Characters of answer text on one card: 18 KB of Chinese in UTF-8, well under the 30 KB a
card may be, with room for the buttons."""
BUTTON_LABEL = 40
"""Longer labels wrap into tall buttons on phones."""

TICKET_CHARS = 2000
"""A bound on the review ticket a button carries. Feishu documents no limit on one value,
only on the whole card; with this bound a card of several buttons stays far below that."""
_OPEN_ID = re.compile(r"^[A-Za-z0-9_-]{1,80}$")


def card(elements: Sequence[Element], *, title: str = "", template: str = "blue") -> Card:
    built: Card = {
        "schema": "2.0",
        "config": {"update_multi": True},
        "body": {"elements": list(elements)},
    }
    if title:
        built["header"] = {"title": {"tag": "plain_text", "content": title}, "template": template}
    return built


def plain(text: str) -> Element:
    return {"tag": "div", "text": {"tag": "plain_text", "content": text}}


def markdown(text: str) -> Element:
    """Our own sentences only (with :func:`mention` for people)."""
    return {"tag": "markdown", "content": text}


def mention(open_id: str) -> str:
    """A person in markdown, shown with their name; an id that isn't one stays plain text."""
    return f"<at id={open_id}></at>" if _OPEN_ID.match(open_id) else open_id


def button(label: str, value: dict[str, Any], *, kind: str = "default") -> Element:
    if len(label) > BUTTON_LABEL:
        label = label[: BUTTON_LABEL - 1].rstrip() + "…"
    return {
        "tag": "button",
        "text": {"tag": "plain_text", "content": label},
        "type": kind,
        "behaviors": [{"type": "callback", "value": value}],
    }


def pieces(text: str, limit: int = MAX_TEXT_PER_CARD) -> list[str]:
    """``text`` in parts of at most ``limit`` characters, cut at line ends where possible."""
    out: list[str] = []
    rest = text
    while len(rest) > limit:
        cut = rest.rfind("\n", 0, limit)
        cut = cut if cut > limit // 2 else limit
        out.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip("\n")
    out.append(rest)
    return [piece for piece in out if piece.strip()] or [""]


def date(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def source_label(n: int, hit: Hit, language: Language = "en") -> str:
    """``[1] 退费与转班制度 · 三、退费计算口径 · 2025-03-01``: the title and section are cut to
    the button, never the date or the status of a source not current."""
    chunk = hit.chunk
    name = chunk.title or chunk.source.rsplit("/", 1)[-1]
    label = f"[{n}] {name}" + (f" · {chunk.heading[-1]}" if chunk.heading else "")
    return with_date(label, date_only(chunk, language), BUTTON_LABEL)


def source_value(n: int, hit: Hit) -> dict[str, Any]:
    """What a citation button carries: which chunk and which version of it, not the passage."""
    return {"k": "source", "n": n, "c": hit.chunk.id, "h": hit.chunk.hash[:16], "s": hit.score}


def provenance_line(provenance: Provenance, language: Language) -> str:
    parts: list[str] = []
    if provenance.reviewed_by:
        when = date(provenance.reviewed_at) if provenance.reviewed_at else "—"
        reviewer = mention(provenance.reviewed_by)
        parts.append(texts.REVIEWED[language].format(reviewer=reviewer, date=when))
    if provenance.cached_at:
        parts.append(texts.CACHED[language].format(date=date(provenance.cached_at)))
    return " · ".join(parts)


def _cards(body: str, tail: list[Element], notice: str) -> list[Card]:
    parts = pieces(body)
    out: list[Card] = []
    for position, part in enumerate(parts):
        elements: list[Element] = []
        if position == 0 and notice:
            elements.append(markdown(notice))
        elements.append(plain(part))
        if position == len(parts) - 1:
            elements += tail
        out.append(card(elements))
    return out


def answer_cards(result: Answer, language: Language, *, notice: str = "") -> list[Card]:
    tail: list[Element] = [
        button(source_label(n, result.hits[n - 1], language), source_value(n, result.hits[n - 1]))
        for n in result.cited
        if 1 <= n <= len(result.hits)
    ]
    line = provenance_line(result.provenance, language)
    if line:
        tail.append(markdown(line))
    return _cards(result.text, tail, notice)


def refusal_cards(
    result: Refusal, language: Language, *, ask_human: Element | None = None, notice: str = ""
) -> list[Card]:
    tail: list[Element] = [ask_human] if ask_human is not None else []
    line = provenance_line(result.provenance, language)
    if line:
        tail.append(markdown(line))
    return _cards(result.text, tail, notice)


def text_cards(text: str, *, notice: str = "") -> list[Card]:
    """A fixed sentence (help, working, failure, "a colleague is reviewing it")."""
    return _cards(text, [], notice)
