"""The modals a reviewer fills in (edit, reject, answer) and reading what they submitted.

Pure functions like :mod:`bot.slack.review_cards`; the modal's ``private_metadata`` carries the
ticket and the card (built by the listeners), the callback ids say which decision it is.
"""

from __future__ import annotations

import json
from typing import Any

from bot.ports import Card
from bot.review.records import Ticket, TicketError
from bot.review.texts import Texts, texts_for
from bot.slack.limits import BUTTON_VALUE, MODAL_TITLE, SECTION_TEXT
from bot.slack.mrkdwn import escape
from bot.slack.review_cards import (
    ANSWER_SUBMIT,
    EDIT_SUBMIT,
    MAX_DRAFT_BLOCKS,
    REASON_INPUT,
    REJECT_SUBMIT,
    SAVE_INPUT,
    TEXT_INPUT,
    Block,
    label,
    plain_blocks,
)

MAX_INPUT_CHARS = SECTION_TEXT
"""A plain_text_input holds at most 3000 characters."""


def _modal(
    callback_id: str, texts: Texts, title: str, submit: str, metadata: str, blocks: list[Block]
) -> Block:
    return {
        "type": "modal",
        "callback_id": callback_id,
        "title": {"type": "plain_text", "text": title[:MODAL_TITLE]},
        "submit": {"type": "plain_text", "text": submit[:MODAL_TITLE]},
        "close": {"type": "plain_text", "text": texts.cancel[:MODAL_TITLE]},
        "private_metadata": metadata,
        "blocks": blocks,
    }


def _text_input(
    block_id: str, label: str, *, initial: str = "", optional: bool = False, multiline: bool = True
) -> Block:
    element: Block = {
        "type": "plain_text_input",
        "action_id": "value",
        "multiline": multiline,
        "max_length": MAX_INPUT_CHARS,
    }
    if initial:
        element["initial_value"] = initial[:MAX_INPUT_CHARS]
    return {
        "type": "input",
        "block_id": block_id,
        "optional": optional,
        "label": {"type": "plain_text", "text": label},
        "element": element,
    }


def edit_modal(metadata: str, *, question: str, draft: str) -> Block:
    texts = texts_for(question)
    blocks = [
        label(texts.question),
        *plain_blocks("q", question, 1),
        _text_input(TEXT_INPUT, texts.answer_label, initial=draft),
    ]
    if len(draft) > MAX_INPUT_CHARS:
        note = escape(texts.draft_cut.format(limit=MAX_INPUT_CHARS))
        blocks.insert(2, {"type": "context", "elements": [{"type": "mrkdwn", "text": note}]})
    return _modal(EDIT_SUBMIT, texts, texts.edit_title, texts.send, metadata, blocks)


def reject_modal(metadata: str, *, question: str, draft: str) -> Block:
    texts = texts_for(question)
    blocks = [
        label(texts.question),
        *plain_blocks("q", question, 1),
        label(texts.draft),
        *plain_blocks("d", draft, MAX_DRAFT_BLOCKS),
        {"type": "context", "elements": [{"type": "mrkdwn", "text": texts.reject_explained}]},
        _text_input(REASON_INPUT, texts.reason, optional=True),
    ]
    return _modal(REJECT_SUBMIT, texts, texts.reject_title, texts.reject, metadata, blocks)


def answer_modal(metadata: str, *, question: str) -> Block:
    texts = texts_for(question)
    save = {
        "type": "input",
        "block_id": SAVE_INPUT,
        "optional": True,
        "label": {"type": "plain_text", "text": texts.save_label},
        "element": {
            "type": "checkboxes",
            "action_id": "value",
            "options": [{"text": {"type": "plain_text", "text": texts.save_option}, "value": "1"}],
        },
    }
    blocks = [
        label(texts.question),
        *plain_blocks("q", question, 1),
        _text_input(TEXT_INPUT, texts.answer_label),
        save,
    ]
    return _modal(ANSWER_SUBMIT, texts, texts.answer_title, texts.send, metadata, blocks)


def submitted(values: dict[str, Any], block_id: str) -> str:
    """A text input's value from ``view.state.values`` (empty when not filled in)."""
    return str((values.get(block_id, {}).get("value", {}) or {}).get("value") or "").strip()


def checked(values: dict[str, Any], block_id: str) -> bool:
    return bool((values.get(block_id, {}).get("value", {}) or {}).get("selected_options"))


def modal_metadata(ticket: Ticket, card: Card) -> str:
    """The modal's ``private_metadata``: the ticket and where its card is."""
    data = {"t": ticket.to_value(BUTTON_VALUE), "c": card.channel, "s": card.ts}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def from_metadata(raw: str) -> tuple[Ticket, Card]:
    """Raises TicketError for metadata that is not ours."""
    try:
        data = json.loads(raw)
        return Ticket.from_value(data["t"]), Card(str(data["c"]), str(data["s"]))
    except (ValueError, KeyError, TypeError) as error:
        msg = f"not review modal metadata: {raw[:80]!r}"
        raise TicketError(msg) from error
