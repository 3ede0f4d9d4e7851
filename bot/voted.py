"""Answers people voted down, on the review desk: a knowledge-gap card with the votes.

:meth:`VotedDown.claim` makes one process (and one click) the one that withdraws an answer and
posts its card (Redis ``SET NX`` through the review state, this process alone without Redis).
The card is a gap card (``ticket.kind == "gap"``): reviewers answer or dismiss it with the
desk's usual buttons, and the answer goes to the voted answer's thread (and, if they tick it,
is given from then on). Its review id is derived from the answer, so a "what was wrong" note
that arrives after the card finds it and is shown there (:meth:`VotedDown.refresh`), on a
board that can redraw votes (:class:`VotesBoard`).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from bot.ports import Card, NewCard, ReviewBoard
from bot.review.board import post_for_review
from bot.review.records import Ticket
from bot.review.state import ReviewState

logger = logging.getLogger(__name__)

Votes = tuple[tuple[str, str], ...]
"""(voter, what was wrong) per 👎."""


@runtime_checkable
class VotesBoard(Protocol):
    async def show_votes(self, card: Card, votes: Votes) -> None:
        """Redraw the votes on ``card`` (best effort, never raises)."""


@dataclass(frozen=True, slots=True)
class VotedDownCard:
    answer: str
    channel: str
    thread_ts: str
    message_ts: str
    asker: str
    scope: str
    question: str
    text: str
    sources: tuple[tuple[str, str | None], ...]
    """(label, link) of each cited passage."""
    votes: Votes
    digest: str = ""
    """The question's digest as the 👎 buttons carried it (the question may be shortened)."""


VOTED_PREFIX = "vote-"


def review_id_of(answer: str) -> str:
    """The card's review id, from the answer: stable across processes."""
    return VOTED_PREFIX + hashlib.blake2b(answer.encode("utf-8"), digest_size=8).hexdigest()


def is_voted_down(review_id: str) -> bool:
    """Whether a review is the card of an answer people voted down."""
    return review_id.startswith(VOTED_PREFIX)


@dataclass
class VotedDown:
    board: ReviewBoard
    state: ReviewState
    clock: Callable[[], float] = time.time

    async def claim(self, answer: str) -> bool:
        """``True`` for the first caller only, across processes while Redis is shared."""
        return await self.state.first(f"voted-down:{answer}")

    async def post(self, card: VotedDownCard) -> None:
        ticket = Ticket.opened(
            review_id_of(card.answer), "gap", card, created=self.clock(), digest=card.digest
        )
        new = NewCard(
            ticket,
            question=card.question,
            draft=card.text,
            sources=tuple((label, 0.0, link) for label, link in card.sources),
            votes=card.votes,
        )
        await self.state.open(await post_for_review(self.board, new))

    async def refresh(self, answer: str, votes: Votes) -> None:
        """Show ``votes`` on the answer's card while it is open (a decided card stays)."""
        review = await self.state.get(review_id_of(answer))
        if review is None or not review.card_ts or not isinstance(self.board, VotesBoard):
            return
        card = Card(review.card_channel, review.card_ts, review.question, review.draft)
        await self.board.show_votes(card, votes)
