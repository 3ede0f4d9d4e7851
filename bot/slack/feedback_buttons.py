"""Slack's native feedback buttons under every answer (``context_actions`` with
``feedback_buttons``, 👍 / 👎), and the optional "what was wrong" form a 👎 offers.

Each button's value carries what the vote must record and what withdrawing the answer needs
— the verdict, the standalone question, the answer text's hash, scope, index version, asker,
where it came from and the cited passages — so a click needs no lookup
(:mod:`bot.slack.listeners.feedback`). Within Slack's 2,000 characters: the passages are
dropped first, then the question is shortened; the question's digest (``d``) rides along
whole, so withdrawing still finds the cached and reviewed answer of a question too long to
carry.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot import texts
from bot.feedback import Vote
from bot.ports import Answered
from bot.slack.limits import BUTTON_VALUE
from bot.values import fitted
from rag import MAX_NOTE_CHARS, Answer, Language, VoteVerdict, answer_hash, question_digest

FEEDBACK_ACTION = "citebot_feedback"
FEEDBACK_BLOCK = "citebot_feedback"
TELL_ACTION = "citebot_feedback_tell"
"""The "what was wrong" button beside the thanks for a 👎."""
NOTE_VIEW = "citebot_feedback_note"
NOTE_BLOCK, NOTE_INPUT = "note", "note_input"
MAX_SOURCES_IN_VALUE = 8


def feedback_value(verdict: VoteVerdict, result: Answer, answered: Answered | None) -> str:
    provenance = result.provenance
    served = "reviewed" if provenance.reviewed_by else "cache" if provenance.cached_at else ""
    data: dict[str, Any] = {"v": verdict, "h": answer_hash(result.text), "f": served}
    if answered is not None:
        data.update(k=answered.scope, i=answered.index_version, u=answered.asker)
        data.update(d=question_digest(result.question, answered.scope))
    sources = [result.hits[n - 1].chunk.id for n in result.cited][:MAX_SOURCES_IN_VALUE]

    def render(kept: Sequence[str], question: str) -> str:
        return json.dumps({**data, "q": question, "s": list(kept)}, ensure_ascii=False)

    return fitted(render, sources, result.question, BUTTON_VALUE)


def feedback_block(result: Answer, answered: Answered | None = None) -> dict[str, Any]:
    """The 👍 / 👎 under an answer."""
    return {
        "type": "context_actions",
        "block_id": FEEDBACK_BLOCK,
        "elements": [
            {
                "type": "feedback_buttons",
                "action_id": FEEDBACK_ACTION,
                "positive_button": {
                    "text": {"type": "plain_text", "text": "👍"},
                    "accessibility_label": texts.FEEDBACK_LABELS[result.language]["up"],
                    "value": feedback_value("up", result, answered),
                },
                "negative_button": {
                    "text": {"type": "plain_text", "text": "👎"},
                    "accessibility_label": texts.FEEDBACK_LABELS[result.language]["down"],
                    "value": feedback_value("down", result, answered),
                },
            }
        ],
    }


def vote_from(value: str, *, answer: str, user: str, index_version: str) -> Vote:
    """The vote a button value is; raises ValueError (or KeyError, TypeError) for a value that
    is not one of ours."""
    data = json.loads(value)
    verdict: VoteVerdict = "up" if data["v"] == "up" else "down"
    return Vote(
        answer=answer,
        user=user,
        verdict=verdict,
        question=str(data.get("q", "")),
        text_hash=str(data.get("h", "")),
        sources=tuple(str(source) for source in data.get("s", ())),
        index_version=str(data.get("i", index_version)),
        served_from=str(data.get("f", "")),
        scope=str(data["k"]) if "k" in data else None,
        asker=str(data.get("u", "")),
        digest=str(data.get("d", "")),
    )


def thanks_blocks(vote: Vote, language: Language) -> tuple[str, list[dict[str, Any]]]:
    """The ephemeral thanks; for a 👎 with a button to say what was wrong."""
    thanks = texts.FEEDBACK_THANKS[vote.verdict][language]
    section = {"type": "section", "text": {"type": "plain_text", "text": thanks}}
    if vote.verdict == "up":
        return thanks, [section]
    button = {
        "type": "button",
        "action_id": TELL_ACTION,
        "text": {"type": "plain_text", "text": texts.FEEDBACK_TELL[language]},
        "value": json.dumps({"a": vote.answer, "l": language}),
    }
    section["accessory"] = button
    return thanks, [section]


def note_modal(answer: str, language: Language) -> dict[str, Any]:
    """The optional "what was wrong" form; ``private_metadata`` says which answer it is about."""
    words = texts.FEEDBACK_FORM[language]
    return {
        "type": "modal",
        "callback_id": NOTE_VIEW,
        "private_metadata": json.dumps({"a": answer, "l": language}),
        "title": {"type": "plain_text", "text": words["title"]},
        "submit": {"type": "plain_text", "text": words["submit"]},
        "close": {"type": "plain_text", "text": words["close"]},
        "blocks": [
            {
                "type": "input",
                "block_id": NOTE_BLOCK,
                "optional": True,
                "label": {"type": "plain_text", "text": words["label"]},
                "element": {
                    "type": "plain_text_input",
                    "action_id": NOTE_INPUT,
                    "multiline": True,
                    "max_length": MAX_NOTE_CHARS,
                    "placeholder": {"type": "plain_text", "text": words["hint"]},
                },
            }
        ],
    }
