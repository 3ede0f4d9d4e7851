"""Review listeners: card buttons, modal submissions, "Ask a human", the App Home tab.

Thin on purpose: parse the payload, acknowledge within Slack's 3 seconds, check who clicked,
hand the rest to :class:`bot.review.desk.ReviewDesk`. Buttons are acknowledged before any work;
modal submissions are acknowledged after the quick checks, so an empty text or a decision
someone else already made is shown inside the modal instead of silently closing it.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.review.desk import Card, DeliveryFailed, ReviewDesk
from bot.review.state import Decision, Ticket, TicketError, Verdict
from bot.review.texts import Texts, texts_for
from bot.slack.home import home_view
from bot.slack.review_cards import (
    ANSWER,
    ANSWER_SUBMIT,
    APPROVE,
    ASK_HUMAN,
    DISMISS,
    EDIT,
    EDIT_SUBMIT,
    REASON_INPUT,
    REJECT,
    REJECT_SUBMIT,
    SAVE_INPUT,
    TEXT_INPUT,
    answer_modal,
    checked,
    edit_modal,
    read_back,
    reject_modal,
    slack_date,
    submitted,
    without_ask_button,
)

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
    return Click(
        user=str(body["user"]["id"]),
        ticket=Ticket.from_value(str(body["actions"][0].get("value", ""))),
        card=Card(channel, ts, list(message.get("blocks") or [])),
        trigger_id=str(body.get("trigger_id", "")),
    )


def _metadata(click: Click) -> str:
    data = {"t": click.ticket.to_value(), "c": click.card.channel, "s": click.card.ts}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _from_metadata(raw: str) -> tuple[Ticket, Card]:
    try:
        data = json.loads(raw)
        return Ticket.from_value(data["t"]), Card(str(data["c"]), str(data["s"]))
    except (ValueError, KeyError, TypeError) as error:
        msg = f"not review modal metadata: {raw[:80]!r}"
        raise TicketError(msg) from error


def already(texts: Texts, decision: Decision) -> str:
    return texts.already_decided.format(
        reviewer=decision.reviewer,
        date=slack_date(decision.at),
        outcome=texts.outcomes[decision.verdict],
    )


async def _tell(
    client: AsyncWebClient, channel: str, user: str, text: str, thread_ts: str | None = None
) -> None:
    """An ephemeral note to one person; failing to deliver it is logged, never raised."""
    try:
        await client.chat_postEphemeral(channel=channel, user=user, text=text, thread_ts=thread_ts)
    except SlackApiError:
        logger.warning("ephemeral to %s in %s not delivered", user, channel, exc_info=True)


def register_review(app: AsyncApp, desk: ReviewDesk) -> None:
    """Add the review desk's action, view and event listeners to ``app``."""

    async def start(ack: Ack, body: Body, client: AsyncWebClient) -> Click | None:
        """Ack, parse, and check the clicker may act; ``None`` when they may not."""
        await ack()
        try:
            click = _click(body)
        except TicketError:
            logger.warning("review click with a foreign value ignored", exc_info=True)
            return None
        if not await desk.is_reviewer(client, click.user):
            texts = texts_for(read_back(click.card.blocks, "q"))
            await _tell(client, click.card.channel, click.user, texts.only_reviewers)
            return None
        return click

    async def decide_click(
        click: Click, client: AsyncWebClient, verdict: Verdict, *, use_draft: bool
    ) -> None:
        question, draft = await desk.contents(click.ticket, click.card.blocks)
        texts = texts_for(question)
        if use_draft and not draft:
            await _tell(client, click.card.channel, click.user, texts.unreadable)
            return
        try:
            earlier = await desk.decide(
                client,
                click.ticket,
                click.card,
                verdict=verdict,
                reviewer=click.user,
                question=question,
                draft=draft,
                text=draft if use_draft else "",
            )
        except DeliveryFailed:
            await _tell(client, click.card.channel, click.user, texts.not_delivered)
            return
        if earlier is not None:
            await _tell(client, click.card.channel, click.user, already(texts, earlier))

    @app.action(APPROVE)
    async def approve(ack: Ack, body: Body, client: AsyncWebClient) -> None:
        click = await start(ack, body, client)
        if click is not None:
            await decide_click(click, client, "approved", use_draft=True)

    @app.action(DISMISS)
    async def dismiss(ack: Ack, body: Body, client: AsyncWebClient) -> None:
        click = await start(ack, body, client)
        if click is not None:
            await decide_click(click, client, "dismissed", use_draft=False)

    async def open_modal(click: Click, client: AsyncWebClient, build: str) -> None:
        question, draft = await desk.contents(click.ticket, click.card.blocks)
        texts = texts_for(question)
        earlier = await desk.state.decision(click.ticket.review_id)
        if earlier is not None:
            await _tell(client, click.card.channel, click.user, already(texts, earlier))
            return
        metadata = _metadata(click)
        if build == EDIT:
            view = edit_modal(metadata, question=question, draft=draft)
        elif build == REJECT:
            view = reject_modal(metadata, question=question, draft=draft)
        else:
            view = answer_modal(metadata, question=question)
        try:
            await client.views_open(trigger_id=click.trigger_id, view=view)
        except SlackApiError:
            logger.exception("review modal for %s did not open", click.ticket.review_id)
            await _tell(client, click.card.channel, click.user, texts.modal_failed)

    def modal_click(kind: str) -> Callable[[Ack, Body, AsyncWebClient], Awaitable[None]]:
        # A closure, not a default argument: bolt injects listener arguments by name.
        async def listener(ack: Ack, body: Body, client: AsyncWebClient) -> None:
            click = await start(ack, body, client)
            if click is not None:
                await open_modal(click, client, kind)

        return listener

    for action_id in (EDIT, REJECT, ANSWER):
        app.action(action_id)(modal_click(action_id))

    async def submit(
        ack: Ack, body: Body, client: AsyncWebClient, view: Body, verdict: Verdict
    ) -> None:
        user = str(body["user"]["id"])
        values = (view.get("state") or {}).get("values") or {}
        question = read_back(view.get("blocks") or [], "q")
        texts = texts_for(question)
        field = REASON_INPUT if verdict == "rejected" else TEXT_INPUT
        try:
            ticket, card = _from_metadata(str(view.get("private_metadata", "")))
        except TicketError:
            logger.warning("review modal with foreign metadata", exc_info=True)
            await ack()
            return
        text = submitted(values, TEXT_INPUT)
        if verdict != "rejected" and not text:
            await ack(response_action="errors", errors={field: texts.empty_text})
            return
        if not await desk.is_reviewer(client, user):
            await ack(response_action="errors", errors={field: texts.only_reviewers})
            return
        earlier = await desk.state.decision(ticket.review_id)
        if earlier is not None:
            await ack(response_action="errors", errors={field: already(texts, earlier)})
            return
        await ack()
        stored_question, draft = await desk.contents(ticket, [])
        draft = read_back(view.get("blocks") or [], "d") or draft
        try:
            earlier = await desk.decide(
                client,
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
            await _tell(client, card.channel, user, texts.not_delivered)
            return
        if earlier is not None:
            await _tell(client, card.channel, user, already(texts, earlier))

    verdicts: dict[str, Verdict] = {
        EDIT_SUBMIT: "edited",
        REJECT_SUBMIT: "rejected",
        ANSWER_SUBMIT: "answered",
    }

    def on_submit(verdict: Verdict) -> Callable[[Ack, Body, AsyncWebClient, Body], Awaitable[None]]:
        async def listener(ack: Ack, body: Body, client: AsyncWebClient, view: Body) -> None:
            await submit(ack, body, client, view, verdict)

        return listener

    for callback_id, verdict in verdicts.items():
        app.view(callback_id)(on_submit(verdict))

    @app.action(ASK_HUMAN)
    async def ask_human(ack: Ack, body: Body, client: AsyncWebClient) -> None:
        await ack()
        try:
            click = _click(body)
        except TicketError:
            logger.warning("ask-a-human click with a foreign value ignored", exc_info=True)
            return
        texts = texts_for(click.ticket.question)
        thread = click.ticket.thread_ts
        if not await desk.ask_human(client, click.ticket, click.card):
            await _tell(client, click.card.channel, click.user, texts.already_asked, thread)
            return
        message = body.get("message") or {}
        try:
            await client.chat_update(
                channel=click.card.channel,
                ts=click.card.ts,
                text=str(message.get("text") or texts.asked_human),
                blocks=without_ask_button(click.card.blocks, texts.asked_human),
            )
        except SlackApiError:
            logger.warning("refusal message not updated; confirming privately", exc_info=True)
            await _tell(client, click.card.channel, click.user, texts.asked_human, thread)

    @app.action(re.compile(r"^home_open_"))
    async def home_link(ack: Ack) -> None:
        await ack()  # a link button: Slack opens the URL, the app only acknowledges

    @app.event("app_home_opened")
    async def home_opened(event: Body, client: AsyncWebClient) -> None:
        if event.get("tab", "home") != "home":
            return
        user = str(event.get("user", ""))
        is_reviewer = await desk.is_reviewer(client, user)
        reviews = await desk.state.pending() if is_reviewer else []
        view = home_view(reviews, now=desk.clock(), is_reviewer=is_reviewer)
        await client.views_publish(user_id=user, view=view)
