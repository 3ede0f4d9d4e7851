"""The review desk's platform side in Slack: REVIEW_CHANNEL and the askers' threads.

Implements :class:`bot.ports.ReviewBoard` (post a card, redraw it decided, list the channel's
members) and :class:`bot.ports.FollowUps` (post a decision in the asker's thread) over one
Web API client. Cards are Block Kit (:mod:`bot.slack.review_cards`); what the asker gets is
:mod:`bot.slack.review_replies`.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.ports import Answered, Card, NewCard, PostedCard
from bot.review.records import Decision, Ticket
from bot.review.texts import conversation_line
from bot.slack.feedback_cards import voted_down_card, with_votes
from bot.slack.reply import SlackMessage
from bot.slack.review_cards import (
    MAX_DRAFT_BLOCKS,
    decided_card,
    gap_card,
    plain_blocks,
    review_card,
)
from bot.slack.review_replies import colleague_answer, dismissal, rejection, reviewed_answer
from bot.voted import is_voted_down
from rag import Hit

logger = logging.getLogger(__name__)


MAX_CONTEXT = 2000
QUESTION_AT = 4
"""A review card's blocks: header, who/where, the question's label, the question — then this."""


def conversation_block(new: NewCard) -> dict[str, Any]:
    """What a follow-up was read after, as plain text (people's words are never mrkdwn)."""
    line = conversation_line(new.question, new.conversation, new.asked)
    return {"type": "context", "elements": [{"type": "plain_text", "text": line[:MAX_CONTEXT]}]}


class SlackReviewBoard:
    def __init__(self, client: AsyncWebClient, review_channel: str) -> None:
        if not review_channel:
            msg = "REVIEW_CHANNEL is empty; set it to the channel id that receives reviews"
            raise ValueError(msg)
        self.client = client
        self.review_channel = review_channel

    # -- ReviewBoard ------------------------------------------------------------------------

    async def post_card(self, new: NewCard) -> PostedCard:
        ticket = new.ticket
        permalink = await self._permalink(ticket.channel, ticket.message_ts)
        if ticket.kind == "review":
            text, blocks = review_card(
                ticket,
                question=new.question,
                draft=new.draft,
                problems=new.problems,
                sources=new.sources,
                permalink=permalink,
                compared=new.compared,
            )
            if new.conversation:
                blocks.insert(QUESTION_AT, conversation_block(new))
        elif new.votes:
            text, blocks = voted_down_card(new, permalink)
        else:
            text, blocks = gap_card(
                ticket, question=new.question, sources=new.sources, permalink=permalink
            )
        posted = await self.client.chat_postMessage(
            channel=self.review_channel, text=text, blocks=blocks
        )
        card_ts = str(posted["ts"])
        link = await self._permalink(self.review_channel, card_ts)
        return PostedCard(Card(self.review_channel, card_ts, new.question, new.draft), link)

    async def close_card(
        self,
        card: Card,
        decision: Decision,
        *,
        question: str,
        draft: str,
        sent: str,
        review_id: str,
    ) -> None:
        blocks = card.shown or await self._card_blocks(card)
        if not blocks:
            blocks = plain_blocks("q", question, 1) + plain_blocks("d", draft, MAX_DRAFT_BLOCKS)
        summary, decided = decided_card(
            blocks, decision, question=question, sent=sent, review_id=review_id
        )
        try:
            await self.client.chat_update(
                channel=card.channel, ts=card.ts, text=summary, blocks=decided
            )
        except SlackApiError:
            logger.exception("review card %s/%s not updated", card.channel, card.ts)

    async def show_votes(self, card: Card, votes: tuple[tuple[str, str], ...]) -> None:
        """Redraw the 👎 on a voted-down card (a note arrived after it was posted)."""
        blocks = await self._card_blocks(card)
        if not blocks:
            return
        try:
            await self.client.chat_update(
                channel=card.channel,
                ts=card.ts,
                text=card.question[:200],
                blocks=with_votes(blocks, votes, card.question),
            )
        except SlackApiError:
            logger.exception("voted-down card %s/%s not updated", card.channel, card.ts)

    async def members(self) -> frozenset[str] | None:
        members: set[str] = set()
        cursor = None
        try:
            while True:
                page = await self.client.conversations_members(
                    channel=self.review_channel, limit=1000, cursor=cursor
                )
                members.update(str(member) for member in page.get("members") or [])
                cursor = (page.get("response_metadata") or {}).get("next_cursor")
                if not cursor:
                    return frozenset(members)
        except SlackApiError:
            logger.exception("could not list the members of %s", self.review_channel)
            return None

    # -- FollowUps --------------------------------------------------------------------------

    async def follow_up(
        self, ticket: Ticket, decision: Decision, *, question: str, text: str, hits: tuple[Hit, ...]
    ) -> bool:
        messages: list[SlackMessage] = []
        if decision.verdict in ("approved", "edited"):
            at = datetime.fromtimestamp(decision.at, UTC)
            answered = Answered(ticket.asker, ticket.scope, index_version="")
            messages = reviewed_answer(
                question, text, hits, reviewer=decision.reviewer, at=at, answered=answered
            )
        elif decision.verdict == "rejected":
            messages = rejection(question)
        elif decision.verdict == "answered":
            messages = colleague_answer(question, text, reviewer=decision.reviewer)
        elif decision.verdict == "dismissed":
            messages = dismissal(question, voted=is_voted_down(ticket.review_id))
        try:
            for message in messages:
                await self.client.chat_postMessage(
                    channel=ticket.channel,
                    thread_ts=ticket.thread_ts,
                    text=message.text,
                    blocks=message.blocks,
                )
        except SlackApiError:
            logger.exception("review %s: asker's thread unreachable", ticket.review_id)
            return False
        return True

    # -- Slack reads ------------------------------------------------------------------------

    async def _permalink(self, channel: str, ts: str) -> str:
        if not ts:
            return ""
        try:
            found = await self.client.chat_getPermalink(channel=channel, message_ts=ts)
        except SlackApiError:
            logger.warning("no permalink for %s/%s", channel, ts, exc_info=True)
            return ""
        return str(found.get("permalink") or "")

    async def _card_blocks(self, card: Card) -> list[dict[str, Any]]:
        """The card as Slack has it (a modal submission does not carry the message)."""
        try:
            found = await self.client.conversations_replies(
                channel=card.channel, ts=card.ts, limit=1
            )
        except SlackApiError:
            logger.warning("review card %s/%s unreadable", card.channel, card.ts, exc_info=True)
            return []
        for message in found.get("messages") or []:
            if message.get("ts") == card.ts:
                return list(message.get("blocks") or [])
        return []
