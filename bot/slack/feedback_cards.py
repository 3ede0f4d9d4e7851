"""Block Kit for an answer people voted down, as pure functions: the knowledge-gap card in
REVIEW_CHANNEL that shows the question, the answer, its sources and the 👎 with what was wrong.

Question and answer are the ``q.*`` / ``d.*`` plain-text sections every review card has (read
back on a click); the buttons are the gap card's (answer, dismiss) with the same ticket, so the
review desk's listeners handle them. The votes are one section with a known block id, which
:func:`with_votes` replaces when a note arrives after the card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.ports import NewCard
from bot.review.texts import texts_for
from bot.slack.limits import BUTTON_VALUE, SECTION_SAFE
from bot.slack.mrkdwn import escape
from bot.slack.review_cards import (
    ACTIONS_BLOCK,
    ANSWER,
    DISMISS,
    MAX_DRAFT_BLOCKS,
    label,
    plain_blocks,
)
from rag import Language, detect_language

Block = dict[str, Any]

VOTES_BLOCK = "votes"
TITLE: dict[Language, str] = {
    "zh": "回答被标记有误（两人 👎），已停止自动回答",
    "en": "Answer voted wrong (two 👎): no longer given automatically",
}
ANSWER_LABEL: dict[Language, str] = {"zh": "被标记的回答", "en": "The answer voted down"}
SOURCES_LABEL: dict[Language, str] = {"zh": "回答引用的资料", "en": "Sources it cited"}
VOTES_LABEL: dict[Language, str] = {"zh": "👎 与反馈", "en": "👎 and what was wrong"}
NO_NOTE: dict[Language, str] = {"zh": "（没有填写原因）", "en": "(no reason given)"}
WHERE: dict[Language, str] = {"zh": "提问人 {asker} · {link}", "en": "Asked by {asker} · {link}"}
LINK: dict[Language, str] = {"zh": "被标记的回答", "en": "the answer"}


def votes_block(votes: Sequence[tuple[str, str]], language: Language) -> Block:
    lines = [
        f"• <@{escape(user)}>: {escape(note) if note else NO_NOTE[language]}"
        for user, note in votes
    ]
    text = "\n".join(lines)[:SECTION_SAFE] or " "
    return {"type": "section", "block_id": VOTES_BLOCK, "text": {"type": "mrkdwn", "text": text}}


def _sources(new: NewCard) -> str:
    lines = []
    for n, (name, _, link) in enumerate(new.sources[:10], start=1):
        lines.append(f"[{n}] <{link}|{escape(name)}>" if link else f"[{n}] {escape(name)}")
    return "\n".join(lines)[:SECTION_SAFE]


def voted_down_card(new: NewCard, permalink: str) -> tuple[str, list[Block]]:
    """(notification text, blocks) of the card for an answer two people voted down."""
    language = detect_language(new.question)
    words = texts_for(new.question)
    ticket, value = new.ticket, new.ticket.to_value(BUTTON_VALUE)
    asker = f"<@{ticket.asker}>" if ticket.asker else "—"
    link = f"<{permalink}|{LINK[language]}>" if permalink else LINK[language]
    where = WHERE[language].format(asker=asker, link=link)
    blocks: list[Block] = [
        {"type": "header", "text": {"type": "plain_text", "text": TITLE[language]}},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": where}]},
        label(words.question),
        *plain_blocks("q", new.question, 1),
        label(ANSWER_LABEL[language]),
        *plain_blocks("d", new.draft, MAX_DRAFT_BLOCKS),
    ]
    if new.sources:
        text = _sources(new)
        blocks += [label(SOURCES_LABEL[language]), {"type": "section", "text": _mrkdwn(text)}]
    blocks += [label(VOTES_LABEL[language]), votes_block(new.votes, language)]
    buttons = [
        _button(words.answer, ANSWER, value, "primary"),
        _button(words.dismiss, DISMISS, value, None),
    ]
    blocks.append({"type": "actions", "block_id": ACTIONS_BLOCK, "elements": buttons})
    return f"{TITLE[language]}: {new.question[:200]}", blocks


def with_votes(
    blocks: Sequence[Block], votes: Sequence[tuple[str, str]], question: str
) -> list[Block]:
    """The card's blocks with its votes section redrawn."""
    language = detect_language(question)
    return [
        votes_block(votes, language) if block.get("block_id") == VOTES_BLOCK else dict(block)
        for block in blocks
    ]


def _mrkdwn(text: str) -> dict[str, str]:
    return {"type": "mrkdwn", "text": text}


def _button(text: str, action_id: str, value: str, style: str | None) -> Block:
    button: Block = {
        "type": "button",
        "text": {"type": "plain_text", "text": text},
        "action_id": action_id,
        "value": value,
    }
    if style:
        button["style"] = style
    return button
