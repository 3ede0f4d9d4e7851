"""Slack's native feedback buttons under every answer (``context_actions`` with
``feedback_buttons``, 👍 / 👎). Each button's value carries what the vote must record — the
verdict, the standalone question (cut to fit Slack's 2,000-character value), the cited passages
and where the answer came from — so a click needs no lookup
(:mod:`bot.slack.listeners.feedback`)."""

from __future__ import annotations

import json
from typing import Any

from bot.feedback import Verdict
from bot.slack.limits import BUTTON_VALUE
from rag import Answer

FEEDBACK_ACTION = "citebot_feedback"
FEEDBACK_BLOCK = "citebot_feedback"
MAX_QUESTION_IN_VALUE = 500
MAX_SOURCES_IN_VALUE = 8


def _value(verdict: Verdict, result: Answer) -> str:
    provenance = result.provenance
    served = "reviewed" if provenance.reviewed_by else "cache" if provenance.cached_at else ""
    data = {
        "v": verdict,
        "q": result.question[:MAX_QUESTION_IN_VALUE],
        "s": [result.hits[n - 1].chunk.id for n in result.cited][:MAX_SOURCES_IN_VALUE],
        "f": served,
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))[:BUTTON_VALUE]


def feedback_block(result: Answer) -> dict[str, Any]:
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
                    "accessibility_label": "Good answer",
                    "value": _value("up", result),
                },
                "negative_button": {
                    "text": {"type": "plain_text", "text": "👎"},
                    "accessibility_label": "Wrong or unhelpful answer",
                    "value": _value("down", result),
                },
            }
        ],
    }
