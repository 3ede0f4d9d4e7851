"""The review desk: drafts that failed the citation check go to people, and come back decided.

``submit_unverified`` posts a review card where reviewers work; ``ask_human_ticket`` is the
payload of the "Ask a human" button under refusals, and ``ask_human`` turns a click on it into
a knowledge-gap card. A reviewer's decision goes through :meth:`ReviewDesk.decide`: the
exactly-once guard first (the loser gets the winner's decision back), then the asker's thread,
then the review list, the reviewed-answer store and one structured log line, and last the card
(redrawn: outcome, reviewer, time, no buttons). If the asker's thread cannot be reached the
claim is released, so the card stays open for another try.

Platform-neutral: cards and follow-ups go through :class:`bot.ports.ReviewBoard` and
:class:`bot.ports.FollowUps`; a platform's listeners parse clicks and call the methods here
(they never reach into the state).
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from bot.origin import Origin
from bot.review.access import MEMBERS_TTL_SECONDS, Reviewers
from bot.review.board import Card, FollowUps, NewCard, ReviewBoard, post_for_review
from bot.review.records import Decision, OpenReview, ReviewOutcome, Ticket
from bot.review.state import ReviewState
from bot.sources import dated, with_date
from rag import (
    Chunk,
    CitebotError,
    Hit,
    Language,
    Problem,
    Refusal,
    ReviewedAnswers,
    ReviewedSource,
    ReviewRecord,
    Unverified,
    question_digest,
)

logger = logging.getLogger(__name__)


class Chunks(Protocol):
    """What the desk reads from the index: a cited chunk by its id (for the reviewers' card
    and the reviewed answer's sources)."""

    def chunk(self, chunk_id: str) -> Chunk | None: ...


NEAR_MISSES = 3


class DeliveryFailed(CitebotError):
    """The asker's thread could not be reached; the decision was not applied."""


def _labelled(
    hits: tuple[Hit, ...], language: Language
) -> tuple[tuple[str, float, str | None], ...]:
    """Each source's label with its date (and status when not current)."""
    return tuple(
        (with_date(hit.chunk.label(), dated(hit.chunk, language), 200), hit.score, hit.chunk.link)
        for hit in hits
    )


def compared(
    problems: tuple[Problem, ...], hits: tuple[Hit, ...], language: Language
) -> tuple[tuple[str, str], ...]:
    """The passages a ``conflict`` problem names, each under its label and date, for the
    reviewer to read side by side."""
    refs = next((p.refs for p in problems if p.kind == "conflict"), ())
    shown: list[tuple[str, str]] = []
    for n in refs:
        if 1 <= n <= len(hits):
            chunk = hits[n - 1].chunk
            head = with_date(f"[{n}] {chunk.title or chunk.label()}", dated(chunk, language), 200)
            shown.append((head, chunk.text))
    return tuple(shown)


def _record(ticket: Ticket, decision: Decision) -> ReviewRecord:
    latency = round(decision.at - ticket.created, 3) if ticket.created else None
    return ReviewRecord(
        at=decision.at,
        review_id=ticket.review_id,
        kind=ticket.kind,
        verdict=decision.verdict,
        latency_seconds=latency,
    )


@dataclass
class ReviewDesk:
    board: ReviewBoard
    askers: FollowUps
    state: ReviewState
    index: Chunks
    reviewed: ReviewedAnswers | None = None
    reviewers: frozenset[str] | None = None
    """REVIEWERS; ``None``: whoever is a member of the reviewers' channel."""
    clock: Callable[[], float] = time.time
    new_id: Callable[[], str] = field(default=lambda: secrets.token_hex(8))
    members_ttl_seconds: float = MEMBERS_TTL_SECONDS
    on_decision: Callable[[ReviewRecord], None] | None = None
    """Hands each applied decision to the report's records (bot/records.py writes it)."""
    _access: Reviewers = field(init=False)

    def __post_init__(self) -> None:
        self._access = Reviewers(
            self.board.members, self.reviewers, ttl_seconds=self.members_ttl_seconds
        )

    # -- into review ------------------------------------------------------------------------

    async def submit_unverified(self, result: Unverified, origin: Origin) -> None:
        ticket = Ticket.opened(
            self.new_id(),
            "review",
            origin,
            created=self.clock(),
            sources=tuple((h.chunk.id, h.chunk.hash, h.score) for h in result.hits),
            digest=question_digest(result.question, origin.scope),
        )
        new = NewCard(
            ticket,
            question=result.question,
            draft=result.draft,
            problems=result.problems,
            sources=_labelled(result.hits, result.language),
            compared=compared(result.problems, result.hits, result.language),
            conversation=origin.conversation,
            asked=origin.asked,
        )
        await self._post(new)

    def ask_human_ticket(self, result: Refusal, origin: Origin) -> Ticket:
        return Ticket.opened(
            "ask",
            "gap",
            origin,
            sources=tuple((h.chunk.id, "", h.score) for h in result.hits[:NEAR_MISSES]),
            question=result.question or origin.question,
            digest=question_digest(result.question or origin.question, origin.scope),
        )

    async def ask_human(self, ask: Ticket, refusal: Card) -> bool:
        """A knowledge-gap card for the question under ``refusal``; ``False`` if already asked."""
        if not await self.state.first(f"ask:{refusal.channel}:{refusal.ts}"):
            return False
        ticket = Ticket.opened(self.new_id(), "gap", ask, created=self.clock(), digest=ask.digest)
        near: list[tuple[str, float, str | None]] = []
        for chunk_id, _, score in ask.sources:
            chunk = self.index.chunk(chunk_id)
            near.append(
                (chunk.label() if chunk else chunk_id, score, chunk.link if chunk else None)
            )
        await self._post(NewCard(ticket, question=ask.question, sources=tuple(near)))
        return True

    async def _post(self, new: NewCard) -> None:
        await self.state.open(await post_for_review(self.board, new))

    # -- what the listeners ask -------------------------------------------------------------

    async def contents(self, ticket: Ticket, card: Card) -> tuple[str, str]:
        """(question, draft) of a review: from the store while it is open, else from the card."""
        stored = await self.state.get(ticket.review_id)
        if stored is not None and stored.question:
            return stored.question, stored.draft
        return card.question, card.draft

    async def is_reviewer(self, user: str) -> bool:
        return await self._access.allows(user)

    async def decision(self, review_id: str) -> Decision | None:
        """The decision already made on ``review_id``, if any."""
        return await self.state.decision(review_id)

    async def pending(self) -> list[OpenReview]:
        """Open reviews, oldest first."""
        return await self.state.pending()

    def now(self) -> float:
        return self.clock()

    # -- decisions --------------------------------------------------------------------------

    async def decide(
        self,
        ticket: Ticket,
        card: Card,
        *,
        verdict: ReviewOutcome,
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
        hits = self._hits(ticket) if verdict in ("approved", "edited") else ()
        told = await self.askers.follow_up(
            ticket, decision, question=question, text=text, hits=hits
        )
        if not told:
            await self.state.release(ticket.review_id)
            logger.error("review %s: asker's thread unreachable", ticket.review_id)
            raise DeliveryFailed(ticket.review_id)
        await self.state.close(ticket.review_id)
        if self.reviewed is not None and save:
            await self._remember(ticket, decision, question, draft, text, at)
        self._log(ticket, decision, question)
        if self.on_decision is not None:
            self.on_decision(_record(ticket, decision))
        sent = text if verdict in ("edited", "answered") else ""
        await self.board.close_card(
            card, decision, question=question, draft=draft, sent=sent, review_id=ticket.review_id
        )
        return None

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
                digest=ticket.digest or None,
            )
        elif decision.verdict == "rejected" and draft.strip():
            await self.reviewed.reject(
                question,
                scope=ticket.scope,
                draft=draft,
                reviewer=decision.reviewer,
                at=at,
                digest=ticket.digest or None,
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
