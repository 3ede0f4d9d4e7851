"""The review desk: drafts that failed the citation check go to people, and come back decided.

``submit_unverified`` posts a review card to REVIEW_CHANNEL; ``refusal_elements`` puts an
"Ask a human" button under refusals. A reviewer's decision goes through :meth:`ReviewDesk.
decide`: the exactly-once guard first (the loser gets the winner's decision back), then the
asker's thread, then the review list, the reviewed-answer store and one structured log line,
and last the card (updated in place: outcome, reviewer, time, no buttons). If the asker's
thread cannot be reached the claim is released, so the card stays open for another try.

The listeners (bot/slack/listeners/review.py) parse payloads and acknowledge; this module holds no
Slack payload shapes beyond what it posts.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.ports import Origin
from bot.review.access import MEMBERS_TTL_SECONDS, Reviewers
from bot.review.state import Decision, OpenReview, ReviewState, Ticket, Verdict
from bot.slack.reply import SlackMessage
from bot.slack.review_cards import (
    MAX_DRAFT_BLOCKS,
    ask_human_button,
    decided_card,
    gap_card,
    plain_blocks,
    read_back,
    review_card,
)
from bot.slack.review_replies import colleague_answer, dismissal, rejection, reviewed_answer
from rag import (
    Chunk,
    ChunkSource,
    Hit,
    Refusal,
    ReviewedAnswers,
    ReviewedSource,
    Unverified,
    question_digest,
)

logger = logging.getLogger(__name__)

NEAR_MISSES = 3


class DeliveryFailed(Exception):
    """The asker's thread could not be reached; the decision was not applied."""


@dataclass(frozen=True, slots=True)
class Card:
    """Where a card is and what it shows now (``blocks`` empty when unknown)."""

    channel: str
    ts: str
    blocks: list[dict[str, Any]] = field(default_factory=list)


def _labelled(hits: tuple[Hit, ...]) -> list[tuple[str, float, str | None]]:
    return [(hit.chunk.label(), hit.score, hit.chunk.link) for hit in hits]


@dataclass
class ReviewDesk:
    review_channel: str
    state: ReviewState
    index: ChunkSource
    reviewed: ReviewedAnswers | None = None
    reviewers: frozenset[str] | None = None
    """REVIEWERS; ``None``: whoever is a member of REVIEW_CHANNEL."""
    clock: Callable[[], float] = time.time
    new_id: Callable[[], str] = field(default=lambda: secrets.token_hex(8))
    members_ttl_seconds: float = MEMBERS_TTL_SECONDS
    _access: Reviewers = field(init=False)

    def __post_init__(self) -> None:
        if not self.review_channel:
            msg = "REVIEW_CHANNEL is empty; set it to the channel id that receives reviews"
            raise ValueError(msg)
        self._access = Reviewers(
            self.review_channel, self.reviewers, ttl_seconds=self.members_ttl_seconds
        )

    # -- into review ------------------------------------------------------------------------

    async def submit_unverified(
        self, client: AsyncWebClient, result: Unverified, origin: Origin
    ) -> None:
        ticket = Ticket(
            review_id=self.new_id(),
            kind="review",
            channel=origin.channel,
            thread_ts=origin.thread_ts,
            asker=origin.user,
            message_ts=origin.message_ts,
            created=self.clock(),
            sources=tuple((h.chunk.id, h.chunk.hash, h.score) for h in result.hits),
        )
        permalink = await self._permalink(client, origin.channel, origin.message_ts)
        text, blocks = review_card(
            ticket,
            question=result.question,
            draft=result.draft,
            problems=result.problems,
            sources=_labelled(result.hits),
            permalink=permalink,
        )
        await self._post_card(client, ticket, result.question, text, blocks, result.draft)

    def refusal_elements(self, result: Refusal, origin: Origin) -> list[dict[str, Any]]:
        ticket = Ticket(
            review_id="ask",
            kind="gap",
            channel=origin.channel,
            thread_ts=origin.thread_ts,
            asker=origin.user,
            message_ts=origin.message_ts,
            sources=tuple((h.chunk.id, "", h.score) for h in result.hits[:NEAR_MISSES]),
            question=result.question or origin.question,
        )
        return [ask_human_button(ticket, question=ticket.question)]

    async def ask_human(self, client: AsyncWebClient, ask: Ticket, refusal: Card) -> bool:
        """A knowledge-gap card for the question under ``refusal``; ``False`` if already asked."""
        if not await self.state.first(f"ask:{refusal.channel}:{refusal.ts}"):
            return False
        ticket = Ticket(
            review_id=self.new_id(),
            kind="gap",
            channel=ask.channel,
            thread_ts=ask.thread_ts,
            asker=ask.asker,
            message_ts=ask.message_ts,
            created=self.clock(),
        )
        near: list[tuple[str, float, str | None]] = []
        for chunk_id, _, score in ask.sources:
            chunk = self.index.chunk(chunk_id)
            near.append(
                (chunk.label() if chunk else chunk_id, score, chunk.link if chunk else None)
            )
        permalink = await self._permalink(client, ask.channel, ask.message_ts)
        text, blocks = gap_card(ticket, question=ask.question, sources=near, permalink=permalink)
        await self._post_card(client, ticket, ask.question, text, blocks, "")
        return True

    async def _post_card(
        self,
        client: AsyncWebClient,
        ticket: Ticket,
        question: str,
        text: str,
        blocks: list[dict[str, Any]],
        draft: str,
    ) -> None:
        posted = await client.chat_postMessage(
            channel=self.review_channel, text=text, blocks=blocks
        )
        card_ts = str(posted["ts"])
        link = await self._permalink(client, self.review_channel, card_ts)
        review = OpenReview(ticket, question, draft, self.review_channel, card_ts, link)
        await self.state.open(review)

    async def _permalink(self, client: AsyncWebClient, channel: str, ts: str) -> str:
        if not ts:
            return ""
        try:
            found = await client.chat_getPermalink(channel=channel, message_ts=ts)
        except SlackApiError:
            logger.warning("no permalink for %s/%s", channel, ts, exc_info=True)
            return ""
        return str(found.get("permalink") or "")

    async def contents(self, ticket: Ticket, blocks: list[dict[str, Any]]) -> tuple[str, str]:
        """(question, draft) of a review: from Redis while it is open, else from the card."""
        stored = await self.state.get(ticket.review_id)
        if stored is not None and stored.question:
            return stored.question, stored.draft
        return read_back(blocks, "q"), read_back(blocks, "d")

    # -- who may act ------------------------------------------------------------------------

    async def is_reviewer(self, client: AsyncWebClient, user: str) -> bool:
        return await self._access.allows(client, user)

    # -- decisions --------------------------------------------------------------------------

    async def decide(
        self,
        client: AsyncWebClient,
        ticket: Ticket,
        card: Card,
        *,
        verdict: Verdict,
        reviewer: str,
        question: str,
        draft: str = "",
        text: str = "",
        reason: str = "",
        save: bool = True,
    ) -> Decision | None:
        """Apply a decision once: ``None`` when applied, else the decision that came first.

        ``text`` is what the asker gets for approved/edited/answered; raises
        :class:`DeliveryFailed` (claim released) when their thread cannot be reached.
        """
        decision = Decision(verdict, reviewer, self.clock(), reason)
        earlier = await self.state.claim(ticket.review_id, decision)
        if earlier is not None:
            return earlier
        at = datetime.fromtimestamp(decision.at, UTC)
        try:
            await self._tell_asker(client, ticket, decision, question, text, at)
        except SlackApiError as error:
            await self.state.release(ticket.review_id)
            logger.exception("review %s: asker's thread unreachable", ticket.review_id)
            raise DeliveryFailed(ticket.review_id) from error
        await self.state.close(ticket.review_id)
        if self.reviewed is not None and save:
            await self._remember(ticket, decision, question, draft, text, at)
        self._log(ticket, decision, question)
        await self._update_card(client, ticket, card, decision, question, draft, text)
        return None

    async def _tell_asker(
        self,
        client: AsyncWebClient,
        ticket: Ticket,
        decision: Decision,
        question: str,
        text: str,
        at: datetime,
    ) -> None:
        messages: list[SlackMessage] = []
        if decision.verdict in ("approved", "edited"):
            hits = self._hits(ticket)
            messages = reviewed_answer(question, text, hits, reviewer=decision.reviewer, at=at)
        elif decision.verdict == "rejected":
            messages = rejection(question)
        elif decision.verdict == "answered":
            messages = colleague_answer(question, text, reviewer=decision.reviewer)
        elif decision.verdict == "dismissed":
            messages = dismissal(question)
        for message in messages:
            await client.chat_postMessage(
                channel=ticket.channel,
                thread_ts=ticket.thread_ts,
                text=message.text,
                blocks=message.blocks,
            )

    def _hits(self, ticket: Ticket) -> tuple[Hit, ...]:
        """The draft's numbered sources from today's index (a vanished one keeps its number)."""
        hits = []
        for rank, (chunk_id, _, score) in enumerate(ticket.sources, start=1):
            chunk = self.index.chunk(chunk_id)
            if chunk is None:
                source, _, n = chunk_id.rpartition("#")
                chunk = Chunk(source=source, text="", n=int(n) if n.isdigit() else 0)
            hits.append(Hit(chunk, score=score, rank=rank))
        return tuple(hits)

    async def _update_card(
        self,
        client: AsyncWebClient,
        ticket: Ticket,
        card: Card,
        decision: Decision,
        question: str,
        draft: str,
        text: str,
    ) -> None:
        blocks = card.blocks or await self._card_blocks(client, card)
        if not blocks:
            blocks = plain_blocks("q", question, 1) + plain_blocks("d", draft, MAX_DRAFT_BLOCKS)
        sent = text if decision.verdict in ("edited", "answered") else ""
        summary, decided = decided_card(
            blocks, decision, question=question, sent=sent, review_id=ticket.review_id
        )
        try:
            await client.chat_update(channel=card.channel, ts=card.ts, text=summary, blocks=decided)
        except SlackApiError:
            logger.exception("review card %s/%s not updated", card.channel, card.ts)

    async def _card_blocks(self, client: AsyncWebClient, card: Card) -> list[dict[str, Any]]:
        """The card as Slack has it (a modal submission does not carry the message)."""
        try:
            found = await client.conversations_replies(channel=card.channel, ts=card.ts, limit=1)
        except SlackApiError:
            logger.warning("review card %s/%s unreadable", card.channel, card.ts, exc_info=True)
            return []
        for message in found.get("messages") or []:
            if message.get("ts") == card.ts:
                return list(message.get("blocks") or [])
        return []

    async def _remember(
        self,
        ticket: Ticket,
        decision: Decision,
        question: str,
        draft: str,
        text: str,
        at: datetime,
    ) -> None:
        assert self.reviewed is not None
        if decision.verdict in ("approved", "edited", "answered") and text.strip():
            sources = [
                ReviewedSource(chunk_id, digest, score, rank)
                for rank, (chunk_id, digest, score) in enumerate(ticket.sources, start=1)
            ]
            if decision.verdict == "answered":
                sources = []
            await self.reviewed.approve(
                question,
                scope=ticket.scope,
                text=text,
                sources=sources,
                reviewer=decision.reviewer,
                at=at,
            )
        elif decision.verdict == "rejected" and draft.strip():
            await self.reviewed.reject(
                question, scope=ticket.scope, draft=draft, reviewer=decision.reviewer, at=at
            )

    def _log(self, ticket: Ticket, decision: Decision, question: str) -> None:
        line = {
            "review_id": ticket.review_id,
            "kind": ticket.kind,
            "question_hash": question_digest(question, ticket.scope)[:16],
            "verdict": decision.verdict,
            "reviewer": decision.reviewer,
            "latency_s": round(decision.at - ticket.created, 3) if ticket.created else None,
        }
        logger.info("review_decision %s", json.dumps(line, separators=(",", ":")))
