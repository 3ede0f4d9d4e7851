"""Review desk cards in the reviewers' Feishu group, as pure functions.

A review card shows the asker, the question, the draft, what the checker found and the sources
with scores. Its decision controls are one form: the draft in an editable box and three submit
buttons — approve, edit & send, reject — so every click carries the text the reviewer sees
(Feishu's callback does not carry the card itself, and the review store may have forgotten the
draft after a restart). "Approve" sends the draft as written; if the box was changed it counts
as an edit. A knowledge-gap card has a box for a colleague's answer, Send, and Dismiss.

Every button's value holds the :class:`~bot.review.records.Ticket` (as ``to_value``) and the
question, so a decision can be delivered with no server state at all.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.feishu.cards import (
    TICKET_CHARS,
    Card,
    Element,
    button,
    card,
    date,
    markdown,
    mention,
    plain,
)
from bot.ports import NewCard
from bot.relevance import relevance
from bot.review.problems import shown_problems
from bot.review.records import Decision, Ticket
from bot.review.texts import Texts, texts_for

MAX_INPUT = 1000
"""Characters an input box holds (Feishu's limit for ``input``)."""
MAX_QUESTION_IN_VALUE = 500
TEXT_FIELD = "text"
REASON_FIELD = "reason"


def _value(action: str, ticket: Ticket, question: str) -> dict[str, Any]:
    return {"k": action, "t": ticket.to_value(TICKET_CHARS), "q": question[:MAX_QUESTION_IN_VALUE]}


def _submit(label: str, value: dict[str, Any], name: str, kind: str) -> Element:
    element = button(label, value, kind=kind)
    element["name"] = name
    element["form_action_type"] = "submit"
    return element


def _input(name: str, *, default: str = "", placeholder: str = "", label: str = "") -> Element:
    element: Element = {
        "tag": "input",
        "name": name,
        "input_type": "multiline_text",
        "max_length": MAX_INPUT,
        "default_value": default[:MAX_INPUT],
    }
    if placeholder:
        element["placeholder"] = {"tag": "plain_text", "content": placeholder}
    if label:
        element["label"] = {"tag": "plain_text", "content": label}
    return element


def _asker(ticket: Ticket, words: Texts) -> str:
    return f"**{words.asker}**: {mention(ticket.asker)}"


def _sources(new: NewCard) -> list[Element]:
    lines = [
        f"[{n}] {label} ({relevance(score)})" for n, (label, score, _) in enumerate(new.sources, 1)
    ]
    return [plain("\n".join(lines))] if lines else []


def _problems(new: NewCard, words: Texts) -> list[Element]:
    """Per sentence: the sentence quoted once, its problems under it. Plain text: sentences
    and what they are checked against come from a model and from documents."""
    groups, left_out = shown_problems(new.problems, words)
    elements = [
        plain("\n".join([group.heading, *(f"  • {note}" for note in group.notes)]))
        for group in groups
    ]
    if left_out:
        elements.append(plain(words.more_problems.format(count=left_out)))
    return elements or [plain("—")]


def _head(new: NewCard, words: Texts) -> list[Element]:
    """What both cards open with: who asked where, and the question."""
    return [
        markdown(_asker(new.ticket, words)),
        markdown(f"**{words.question}**"),
        plain(new.question),
    ]


def _side_by_side(new: NewCard, words: Texts) -> list[Element]:
    """The passages of two current documents that disagree, in two columns (plain text:
    they come from documents)."""
    if not new.compared:
        return []
    columns = [
        {
            "tag": "column",
            "width": "weighted",
            "weight": 1,
            "vertical_align": "top",
            "elements": [plain(head), plain(passage)],
        }
        for head, passage in new.compared
    ]
    return [markdown(f"**{words.compared}**"), {"tag": "column_set", "columns": columns}]


def review_card(new: NewCard) -> Card:
    words = texts_for(new.question)
    ticket = new.ticket
    elements: list[Element] = [
        *_head(new, words),
        markdown(f"**{words.problems}**"),
        *_problems(new, words),
        *_side_by_side(new, words),
        markdown(f"**{words.sources}**"),
        *_sources(new),
    ]
    if len(new.draft) > MAX_INPUT:
        elements.append(markdown(words.draft_cut.format(limit=MAX_INPUT)))
    form = {
        "tag": "form",
        "name": "decision",
        "elements": [
            _input(TEXT_FIELD, default=new.draft, label=words.draft),
            _input(REASON_FIELD, label=words.reason),
            _submit(words.approve, _value("approve", ticket, new.question), "approve", "primary"),
            _submit(words.edit, _value("edit", ticket, new.question), "edit", "default"),
            _submit(words.reject, _value("reject", ticket, new.question), "reject", "danger"),
        ],
    }
    elements.append(form)
    return card(elements, title=words.review_title, template="orange")


def gap_card(new: NewCard) -> Card:
    words = texts_for(new.question)
    ticket = new.ticket
    elements = _head(new, words)
    if new.sources:
        elements += [markdown(f"**{words.near_misses}**"), *_sources(new)]
    form = {
        "tag": "form",
        "name": "answer",
        "elements": [
            _input(TEXT_FIELD, label=words.answer_label),
            _submit(words.send, _value("answer", ticket, new.question), "answer", "primary"),
            _submit(words.dismiss, _value("dismiss", ticket, new.question), "dismiss", "default"),
        ],
    }
    elements.append(form)
    return card(elements, title=words.gap_title, template="yellow")


def decided_card(decision: Decision, *, question: str, draft: str, sent: str) -> Card:
    """The card once decided: the outcome, who and when, what the asker got; no controls."""
    words = texts_for(question)
    outcome = words.outcomes.get(decision.verdict, decision.verdict)
    when = date(datetime.fromtimestamp(decision.at, UTC))
    elements: list[Element] = [
        markdown(f"**{outcome}** · {mention(decision.reviewer)} · {when}"),
        markdown(f"**{words.question}**"),
        plain(question),
    ]
    if draft:
        elements += [markdown(f"**{words.draft}**"), plain(draft)]
    if sent and sent != draft:
        elements += [markdown(f"**{words.sent}**"), plain(sent)]
    if decision.reason:
        elements += [markdown(f"**{words.reason}**"), plain(decision.reason)]
    return card(elements, title=outcome, template="grey")
