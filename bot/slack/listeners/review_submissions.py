"""Review modal submissions: an edited answer, a rejection, a colleague's own answer.

Acknowledged after the quick checks (empty text, not a reviewer, already decided), whose
answer is shown inside the modal instead of silently closing it; then the desk decides. The
desk is injected by name (see :func:`bot.slack.listeners.review.register`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.review.desk import DeliveryFailed, ReviewDesk
from bot.review.records import ReviewOutcome, TicketError
from bot.review.texts import texts_for
from bot.slack.review_cards import REASON_INPUT, SAVE_INPUT, TEXT_INPUT, read_back
from bot.slack.review_modals import checked, from_metadata, submitted
from bot.slack.review_notes import already, tell

logger = logging.getLogger(__name__)

Ack = Callable[..., Awaitable[Any]]
Body = dict[str, Any]


async def _submitted(
    ack: Ack,
    body: Body,
    client: AsyncWebClient,
    view: Body,
    desk: ReviewDesk,
    verdict: ReviewOutcome,
) -> None:
    user = str(body["user"]["id"])
    values = (view.get("state") or {}).get("values") or {}
    question = read_back(view.get("blocks") or [], "q")
    texts = texts_for(question)
    field = REASON_INPUT if verdict == "rejected" else TEXT_INPUT
    try:
        ticket, card = from_metadata(str(view.get("private_metadata", "")))
    except TicketError:
        logger.warning("review modal with foreign metadata", exc_info=True)
        await ack()
        return
    text = submitted(values, TEXT_INPUT)
    if verdict != "rejected" and not text:
        await ack(response_action="errors", errors={field: texts.empty_text})
        return
    if not await desk.is_reviewer(user):
        await ack(response_action="errors", errors={field: texts.only_reviewers})
        return
    earlier = await desk.decision(ticket.review_id)
    if earlier is not None:
        await ack(response_action="errors", errors={field: already(texts, earlier)})
        return
    await ack()
    stored_question, draft = await desk.contents(ticket, card)
    draft = read_back(view.get("blocks") or [], "d") or draft
    try:
        earlier = await desk.decide(
            ticket,
            card,
            verdict=verdict,
            reviewer=user,
            question=question or stored_question,
            draft=draft,
            text=text,
            reason=submitted(values, REASON_INPUT),
            save=verdict != "answered" or checked(values, SAVE_INPUT),
        )
    except DeliveryFailed:
        await tell(client, card.channel, user, texts.not_delivered)
        return
    if earlier is not None:
        await tell(client, card.channel, user, already(texts, earlier))


async def edited(
    ack: Ack, body: Body, client: AsyncWebClient, view: Body, desk: ReviewDesk
) -> None:
    await _submitted(ack, body, client, view, desk, "edited")


async def rejected(
    ack: Ack, body: Body, client: AsyncWebClient, view: Body, desk: ReviewDesk
) -> None:
    await _submitted(ack, body, client, view, desk, "rejected")


async def answered(
    ack: Ack, body: Body, client: AsyncWebClient, view: Body, desk: ReviewDesk
) -> None:
    await _submitted(ack, body, client, view, desk, "answered")
