"""The bot's App Home tab: what is waiting for reviewers, oldest first, each linked to its card.

Chosen over a slash command because it needs no typing and is always one click away in the
bot's profile; it is republished whenever a reviewer opens the tab. Questions can be
sensitive, so people who are not reviewers see only a one-line explanation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.review.records import OpenReview
from bot.review.texts import EN, ZH
from bot.slack.mrkdwn import escape

MAX_LISTED = 40
"""Home tabs hold 100 blocks; each review takes two."""


def age(seconds: float) -> str:
    """``3 min``, ``5 h``, ``2 d``: how long a review has waited."""
    seconds = max(0.0, seconds)
    if seconds < 3600:
        return f"{max(1, int(seconds // 60))} min"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h"
    return f"{int(seconds // 86400)} d"


def _excerpt(question: str, limit: int = 140) -> str:
    flat = " ".join(question.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _item(review: OpenReview, now: float) -> dict[str, Any]:
    ticket = review.ticket
    kind = EN.review_title if ticket.kind == "review" else EN.gap_title
    text = (
        f"*{escape(kind)}* · <@{ticket.asker}> · {age(now - ticket.created)}\n"
        f"> {escape(_excerpt(review.question))}"
    )
    block: dict[str, Any] = {"type": "section", "text": {"type": "mrkdwn", "text": text}}
    if review.permalink:
        block["accessory"] = {
            "type": "button",
            "text": {"type": "plain_text", "text": f"{EN.home_open} / {ZH.home_open}"},
            "url": review.permalink,
            "action_id": f"home_open_{ticket.review_id}"[:255],
        }
    return block


def home_view(reviews: Sequence[OpenReview], *, now: float, is_reviewer: bool) -> dict[str, Any]:
    """The ``views.publish`` view for one user."""
    header = {
        "type": "header",
        "text": {"type": "plain_text", "text": f"{EN.home_title} · {ZH.home_title}"},
    }
    blocks: list[dict[str, Any]] = [header]
    if not is_reviewer:
        line = f"{EN.home_not_reviewer}\n{ZH.home_not_reviewer}"
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": line}})
        return {"type": "home", "blocks": blocks}
    if not reviews:
        line = f"{EN.home_empty}\n{ZH.home_empty}"
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": line}})
        return {"type": "home", "blocks": blocks}
    count = f"{len(reviews)} open · {len(reviews)} 条待处理"
    blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": count}]})
    for review in reviews[:MAX_LISTED]:
        blocks.append({"type": "divider"})
        blocks.append(_item(review, now))
    if len(reviews) > MAX_LISTED:
        rest = len(reviews) - MAX_LISTED
        line = f"{EN.home_more.format(count=rest)} {ZH.home_more.format(count=rest)}"
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": line}]})
    return {"type": "home", "blocks": blocks}
