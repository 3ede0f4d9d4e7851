"""Review listeners: card buttons and "Ask a human" (modal submissions: review_submissions).

Thin on purpose: parse the payload, acknowledge within Slack's 3 seconds, check who clicked,
hand the rest to :class:`bot.review.desk.ReviewDesk` (injected by name: :func:`register` puts
it in each request's context). Buttons are acknowledged before any work; modal submissions
are acknowledged after the quick checks, so an empty text or a decision someone else already
made is shown inside the modal instead of silently closing it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.ports import Card
from bot.review.desk import DeliveryFailed, ReviewDesk
from bot.review.records import ReviewOutcome, Ticket, TicketError
from bot.review.texts import texts_for
from bot.slack.errors import after_ack
from bot.slack.listeners import home
from bot.slack.listeners.review_submissions import answered, edited, rejected
from bot.slack.review_cards import (
    ANSWER,
    ANSWER_SUBMIT,
    APPROVE,
    ASK_HUMAN,
    DISMISS,
    EDIT,
    EDIT_SUBMIT,
    REJECT,
    REJECT_SUBMIT,
    read_back,
    without_ask_button,
)
from bot.slack.review_modals import answer_modal, edit_modal, modal_metadata, reject_modal
from bot.slack.review_notes import already, tell

logger = logging.getLogger(__name__)

Ack = Callable[..., Awaitable[Any]]
Body = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Click:
    user: str
    ticket: Ticket
    card: Card
    trigger_id: str


def _click(body: Body) -> Click:
    """Raises TicketError for a value that is not ours."""
    container = body.get("container") or {}
    message = body.get("message") or {}
    channel = str(container.get("channel_id") or (body.get("channel") or {}).get("id") or "")
    ts = str(container.get("message_ts") or message.get("ts") or "")
    blocks = list(message.get("blocks") or [])
    return Click(
        user=str(body["user"]["id"]),
        ticket=Ticket.from_value(str(body["actions"][0].get("value", ""))),
        card=Card(channel, ts, read_back(blocks, "q"), read_back(blocks, "d"), blocks),
        trigger_id=str(body.get("trigger_id", "")),
    )


async def _start(ack: Ack, body: Body, client: AsyncWebClient, desk: ReviewDesk) -> Click | None:
    """Ack, parse, and check the clicker may act; ``None`` when they may not."""
    await ack()
    try:
        click = _click(body)
    except TicketError:
        logger.warning("review click with a foreign value ignored", exc_info=True)
        return None
    if not await desk.is_reviewer(click.user):
        texts = texts_for(click.card.question)
        await tell(client, click.card.channel, click.user, texts.only_reviewers)
        return None
    return click


async def _decide(
    click: Click,
    client: AsyncWebClient,
    desk: ReviewDesk,
    verdict: ReviewOutcome,
    *,
    use_draft: bool,
) -> None:
    question, draft = await desk.contents(click.ticket, click.card)
    texts = texts_for(question)
    if use_draft and not draft:
        await tell(client, click.card.channel, click.user, texts.unreadable)
        return
    try:
        earlier = await desk.decide(
            click.ticket,
            click.card,
            verdict=verdict,
            reviewer=click.user,
            question=question,
            draft=draft,
            text=draft if use_draft else "",
        )
    except DeliveryFailed:
        await tell(client, click.card.channel, click.user, texts.not_delivered)
        return
    if earlier is not None:
        await tell(client, click.card.channel, click.user, already(texts, earlier))


@after_ack
async def approve(ack: Ack, body: Body, client: AsyncWebClient, desk: ReviewDesk) -> None:
    click = await _start(ack, body, client, desk)
    if click is not None:
        await _decide(click, client, desk, "approved", use_draft=True)


@after_ack
async def dismiss(ack: Ack, body: Body, client: AsyncWebClient, desk: ReviewDesk) -> None:
    click = await _start(ack, body, client, desk)
    if click is not None:
        await _decide(click, client, desk, "dismissed", use_draft=False)


async def _open_modal(
    ack: Ack, body: Body, client: AsyncWebClient, desk: ReviewDesk, action: str
) -> None:
    click = await _start(ack, body, client, desk)
    if click is None:
        return
    question, draft = await desk.contents(click.ticket, click.card)
    texts = texts_for(question)
    earlier = await desk.decision(click.ticket.review_id)
    if earlier is not None:
        await tell(client, click.card.channel, click.user, already(texts, earlier))
        return
    metadata = modal_metadata(click.ticket, click.card)
    if action == EDIT:
        view = edit_modal(metadata, question=question, draft=draft)
    elif action == REJECT:
        view = reject_modal(metadata, question=question, draft=draft)
    else:
        view = answer_modal(metadata, question=question)
    try:
        await client.views_open(trigger_id=click.trigger_id, view=view)
    except SlackApiError:
        logger.exception("review modal for %s did not open", click.ticket.review_id)
        await tell(client, click.card.channel, click.user, texts.modal_failed)


@after_ack
async def edit(ack: Ack, body: Body, client: AsyncWebClient, desk: ReviewDesk) -> None:
    await _open_modal(ack, body, client, desk, EDIT)


@after_ack
async def reject(ack: Ack, body: Body, client: AsyncWebClient, desk: ReviewDesk) -> None:
    await _open_modal(ack, body, client, desk, REJECT)


@after_ack
async def answer(ack: Ack, body: Body, client: AsyncWebClient, desk: ReviewDesk) -> None:
    await _open_modal(ack, body, client, desk, ANSWER)


@after_ack
async def ask_human(ack: Ack, body: Body, client: AsyncWebClient, desk: ReviewDesk) -> None:
    await ack()
    try:
        click = _click(body)
    except TicketError:
        logger.warning("ask-a-human click with a foreign value ignored", exc_info=True)
        return
    texts = texts_for(click.ticket.question)
    thread = click.ticket.thread_ts
    if not await desk.ask_human(click.ticket, click.card):
        await tell(client, click.card.channel, click.user, texts.already_asked, thread)
        return
    message = body.get("message") or {}
    try:
        await client.chat_update(
            channel=click.card.channel,
            ts=click.card.ts,
            text=str(message.get("text") or texts.asked_human),
            blocks=without_ask_button(click.card.shown, texts.asked_human),
        )
    except SlackApiError:
        logger.warning("refusal message not updated; confirming privately", exc_info=True)
        await tell(client, click.card.channel, click.user, texts.asked_human, thread)


def register(app: AsyncApp, desk: ReviewDesk) -> None:
    """Add the review desk's action, view and event listeners to ``app``."""

    async def provide_desk(context: AsyncBoltContext, next: Callable[[], Awaitable[None]]) -> None:
        context["desk"] = desk  # listeners name a ``desk`` argument; bolt injects it
        await next()

    app.middleware(provide_desk)
    for action_id, listener in (
        (APPROVE, approve),
        (DISMISS, dismiss),
        (EDIT, edit),
        (REJECT, reject),
        (ANSWER, answer),
        (ASK_HUMAN, ask_human),
    ):
        app.action(action_id)(listener)
    app.view(EDIT_SUBMIT)(edited)
    app.view(REJECT_SUBMIT)(rejected)
    app.view(ANSWER_SUBMIT)(answered)
    home.register(app)
