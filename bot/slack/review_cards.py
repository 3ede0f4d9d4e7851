"""Block Kit for the review desk, as pure functions: cards, decided cards and modals.

The question and the draft are shown as ``plain_text`` sections with known block ids
(``q.0``, ``d.0``, ``d.1`` …) so :func:`read_back` can recover them exactly from the card a
click arrives with — the card is the copy of record when Redis has forgotten the review.
Every button on a card carries the same :class:`~bot.review.records.Ticket` as its value.
User texts for reviewers and askers are in :mod:`bot.review.texts`; the modals a reviewer
fills in are :mod:`bot.slack.review_modals`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.relevance import relevance
from bot.review.problems import shown_problems
from bot.review.records import Decision, Ticket
from bot.review.texts import Texts, texts_for
from bot.slack.limits import BUTTON_TEXT, BUTTON_VALUE, MAX_BLOCKS, SECTION_SAFE, slack_date
from bot.slack.mrkdwn import escape, split_text, unescape
from rag import Problem

Block = dict[str, Any]

APPROVE, EDIT, REJECT = "review_approve", "review_edit", "review_reject"
ANSWER, DISMISS, ASK_HUMAN = "gap_answer", "gap_dismiss", "ask_human"
EDIT_SUBMIT, REJECT_SUBMIT = "review_edit_submit", "review_reject_submit"
ANSWER_SUBMIT = "gap_answer_submit"
ACTIONS_BLOCK = "review_actions"
TEXT_INPUT, REASON_INPUT, SAVE_INPUT = "text_input", "reason_input", "save_input"

MAX_DRAFT_BLOCKS = 12
MAX_SOURCES_SHOWN = 10


def plain_blocks(prefix: str, text: str, limit: int) -> list[Block]:
    pieces = split_text(text, SECTION_SAFE)[:limit] if text else [""]
    return [
        {
            "type": "section",
            "block_id": f"{prefix}.{n}",
            "text": {"type": "plain_text", "text": piece or " ", "emoji": False},
        }
        for n, piece in enumerate(pieces)
    ]


def label(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": f"*{escape(text)}*"}}


def _button(text: str, action_id: str, value: str, style: str | None = None) -> Block:
    button: Block = {
        "type": "button",
        "text": {"type": "plain_text", "text": text[:BUTTON_TEXT]},
        "action_id": action_id,
        "value": value,
    }
    if style:
        button["style"] = style
    return button


def _who_where(texts: Texts, ticket: Ticket, permalink: str) -> Block:
    where = f"<#{ticket.channel}>" if ticket.channel.startswith("C") else texts.direct_message
    parts = [f"{texts.asker} <@{ticket.asker}>", where]
    if permalink:
        parts.append(f"<{permalink}|{texts.original}>")
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": " · ".join(parts)}]}


def source_lines(sources: Sequence[tuple[str, float, str | None]]) -> str:
    """``[n] label — score`` per (label, score, link) source, linked when a link is known."""
    lines = []
    for n, (label, score, link) in enumerate(sources[:MAX_SOURCES_SHOWN], start=1):
        name = f"<{link}|{escape(label)}>" if link else escape(label)
        lines.append(f"[{n}] {name} — {relevance(score)}")
    return "\n".join(lines)


def review_card(
    ticket: Ticket,
    *,
    question: str,
    draft: str,
    problems: Sequence[Problem],
    sources: Sequence[tuple[str, float, str | None]],
    permalink: str,
    compared: Sequence[tuple[str, str]] = (),
) -> tuple[str, list[Block]]:
    """(notification text, blocks) of the card an unverified draft gets in REVIEW_CHANNEL;
    ``compared``: the passages of two documents that disagree, shown side by side."""
    texts = texts_for(question)
    value = ticket.to_value(BUTTON_VALUE)
    blocks: list[Block] = [
        {"type": "header", "text": {"type": "plain_text", "text": texts.review_title}},
        _who_where(texts, ticket, permalink),
        label(texts.question),
        *plain_blocks("q", question, 1),
        label(texts.draft),
        *plain_blocks("d", draft, MAX_DRAFT_BLOCKS),
    ]
    blocks.extend(problem_blocks(texts, problems))
    blocks.extend(side_by_side(texts.compared, compared))
    blocks.extend(_sources(texts.sources, sources))
    blocks.append(
        {
            "type": "actions",
            "block_id": ACTIONS_BLOCK,
            "elements": [
                _button(texts.approve, APPROVE, value, "primary"),
                _button(texts.edit, EDIT, value),
                _button(texts.reject, REJECT, value, "danger"),
            ],
        }
    )
    return f"{texts.review_title}: {question[:200]}", blocks


def problem_blocks(texts: Texts, problems: Sequence[Problem]) -> list[Block]:
    """Under the draft: per sentence, the sentence quoted once and its problems under it."""
    if not problems:
        return []
    groups, left_out = shown_problems(problems, texts)
    blocks = [label(texts.problems)]
    for group in groups:
        head = f"> {escape(group.sentence)}" if group.sentence else f"_{escape(group.heading)}_"
        lines = "\n".join([head, *(f"• {escape(note)}" for note in group.notes)])
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": lines[:SECTION_SAFE]}})
    if left_out:
        more = texts.more_problems.format(count=left_out)
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": more}]})
    return blocks


COMPARED_FIELD = 1900
"""Characters of one passage in a field (Slack's limit is 2,000 per field)."""


def side_by_side(title: str, compared: Sequence[tuple[str, str]]) -> list[Block]:
    """Two (or more) passages as the fields of one section: Slack lays fields out in two
    columns, so the reviewer reads the disagreeing rules next to each other."""
    if not compared:
        return []
    fields = []
    for head, passage in compared[:10]:
        quoted = "\n".join(f">{escape(line)}" for line in passage.splitlines() or [""])
        text = f"*{escape(head)}*\n{quoted}"
        if len(text) > COMPARED_FIELD:
            text = text[: COMPARED_FIELD - 1] + "…"
        fields.append({"type": "mrkdwn", "text": text})
    return [label(title), {"type": "section", "block_id": "compared", "fields": fields}]


def _sources(title: str, sources: Sequence[tuple[str, float, str | None]]) -> list[Block]:
    """The retrieved sources with their scores under ``title``; nothing when there are none."""
    if not sources:
        return []
    text = source_lines(sources)[:SECTION_SAFE]
    return [label(title), {"type": "section", "text": {"type": "mrkdwn", "text": text}}]


def gap_card(
    ticket: Ticket,
    *,
    question: str,
    sources: Sequence[tuple[str, float, str | None]],
    permalink: str,
) -> tuple[str, list[Block]]:
    """A question the documents don't answer, which the asker wants a person to answer."""
    texts = texts_for(question)
    value = ticket.to_value(BUTTON_VALUE)
    blocks: list[Block] = [
        {"type": "header", "text": {"type": "plain_text", "text": texts.gap_title}},
        _who_where(texts, ticket, permalink),
        label(texts.question),
        *plain_blocks("q", question, 1),
    ]
    blocks.extend(_sources(texts.near_misses, sources))
    blocks.append(
        {
            "type": "actions",
            "block_id": ACTIONS_BLOCK,
            "elements": [
                _button(texts.answer, ANSWER, value, "primary"),
                _button(texts.dismiss, DISMISS, value),
            ],
        }
    )
    return f"{texts.gap_title}: {question[:200]}", blocks


def read_back(blocks: Sequence[Block], prefix: str) -> str:
    """The text of the ``prefix.N`` plain_text sections, joined: the card's question or draft.

    Slack may hand message text back with ``&``, ``<``, ``>`` escaped; those three entities are
    undone (a draft that literally says ``&lt;`` is the price of not trusting either form)."""
    pieces: list[tuple[int, str]] = []
    for block in blocks:
        block_id = str(block.get("block_id", ""))
        head, _, number = block_id.partition(".")
        if head == prefix and number.isdigit():
            pieces.append((int(number), str(block.get("text", {}).get("text", ""))))
    return unescape("".join(text for _, text in sorted(pieces))).strip()


def decided_card(
    blocks: Sequence[Block],
    decision: Decision,
    *,
    question: str,
    sent: str = "",
    review_id: str = "",
) -> tuple[str, list[Block]]:
    """The card after a decision: buttons gone; outcome, reviewer and time (and what was sent
    when it differs from the draft) added, with the review id the decision log line names."""
    texts = texts_for(question)
    outcome = texts.outcomes[decision.verdict]
    line = f"{outcome} · <@{decision.reviewer}> · {slack_date(decision.at)}"
    if review_id:
        line += f" · `{escape(review_id)}`"
    if decision.reason:
        line += f"\n{texts.reason}: {escape(decision.reason)}"
    kept = [dict(block) for block in blocks if block.get("block_id") != ACTIONS_BLOCK]
    kept = kept[: MAX_BLOCKS - 2 - (MAX_DRAFT_BLOCKS if sent else 0)]
    if sent:
        kept.append(label(texts.sent))
        kept.extend(plain_blocks("s", sent, MAX_DRAFT_BLOCKS))
    kept.append({"type": "context", "elements": [{"type": "mrkdwn", "text": line[:SECTION_SAFE]}]})
    return f"{outcome}: {question[:200]}", kept


def without_ask_button(blocks: Sequence[Block], note: str) -> list[Block]:
    """The asker's refusal message once a human was asked: the button replaced by a note."""
    kept: list[Block] = []
    for block in blocks:
        if block.get("type") == "actions":
            elements = [e for e in block.get("elements", []) if e.get("action_id") != ASK_HUMAN]
            if not elements:
                continue
            block = {**block, "elements": elements}
        kept.append(dict(block))
    kept.append({"type": "context", "elements": [{"type": "mrkdwn", "text": escape(note)}]})
    return kept


def ask_human_button(ticket: Ticket, *, question: str) -> Block:
    """The element the refusal message shows (the Slack edge puts it in an actions block)."""
    return _button(texts_for(question).ask_human, ASK_HUMAN, ticket.to_value(BUTTON_VALUE))
