"""The review desk's platform side in Feishu: cards in FEISHU_REVIEW_CHAT, outcomes in threads.

:class:`FeishuBoard` implements :class:`bot.ports.ReviewBoard` (post a review or knowledge-gap
card to the reviewers' group, redraw it once decided, list the group's members) and
:class:`bot.ports.FollowUps` (the decision, in the asker's thread). The outcome reply carries a
``uuid`` per review, so a decision delivered twice still shows once.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from bot.feishu.api import FeishuApi
from bot.feishu.cards import Card as FeishuCard
from bot.feishu.cards import answer_cards, mention, text_cards
from bot.feishu.review_cards import decided_card, gap_card, review_card
from bot.feishu.thread import reply_uuid
from bot.ports import Card, NewCard, PostedCard
from bot.review.records import Decision, Ticket
from bot.review.texts import texts_for
from rag import HTTP_ERRORS, Answer, Hit, Provenance, detect_language, http_reason, refusal_text

logger = logging.getLogger(__name__)

ApiFailure = HTTP_ERRORS


def outcome_cards(
    ticket: Ticket, decision: Decision, *, question: str, text: str, hits: tuple[Hit, ...]
) -> list[FeishuCard]:
    """What the asker's thread gets for a decision."""
    language = detect_language(question)
    words = texts_for(question)
    if decision.verdict in ("approved", "edited"):
        at = datetime.fromtimestamp(decision.at, UTC)
        provenance = Provenance(reviewed_by=decision.reviewer, reviewed_at=at)
        return answer_cards(Answer(question, text, hits, provenance=provenance), language)
    if decision.verdict == "rejected":
        return text_cards(f"{refusal_text(language)}\n{words.rejected_to_asker}")
    if decision.verdict == "answered":
        header = words.colleague_answer.format(reviewer=mention(decision.reviewer))
        return text_cards(text, notice=header)
    return text_cards(words.dismissed_to_asker)


class FeishuBoard:
    def __init__(self, api: FeishuApi, review_chat: str) -> None:
        if not review_chat:
            msg = "FEISHU_REVIEW_CHAT is empty; set it to the reviewers' group chat_id (oc_…)"
            raise ValueError(msg)
        self.api = api
        self.review_chat = review_chat

    async def post_card(self, new: NewCard) -> PostedCard:
        built = review_card(new) if new.ticket.kind == "review" else gap_card(new)
        message_id = await self.api.send(
            self.review_chat, built, uuid=reply_uuid(new.ticket.review_id, "card")
        )
        return PostedCard(Card(self.review_chat, message_id, new.question, new.draft))

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
        built = decided_card(decision, question=question, draft=draft, sent=sent)
        try:
            await self.api.patch(card.ts, built)
        except ApiFailure as error:
            logger.error(
                "review card %s (%s) not updated: %s", card.ts, review_id, http_reason(error)
            )

    async def members(self) -> frozenset[str] | None:
        try:
            return await self.api.members(self.review_chat)
        except ApiFailure as error:
            logger.warning("members of %s unknown: %s", self.review_chat, http_reason(error))
            return None

    async def follow_up(
        self, ticket: Ticket, decision: Decision, *, question: str, text: str, hits: tuple[Hit, ...]
    ) -> bool:
        cards = outcome_cards(ticket, decision, question=question, text=text, hits=hits)
        try:
            for position, built in enumerate(cards):
                await self.api.reply(
                    ticket.message_ts,
                    built,
                    uuid=reply_uuid(ticket.review_id, f"outcome-{position}"),
                    chat=ticket.channel,
                )
        except ApiFailure as error:
            logger.error(
                "review %s: asker's thread %s unreachable: %s",
                ticket.review_id,
                ticket.channel,
                http_reason(error),
            )
            return False
        return True
