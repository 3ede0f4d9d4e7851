"""What the review desk needs from a chat platform (re-exported by :mod:`bot.ports`, which
describes every seam): where reviewers work (:class:`ReviewBoard`, its :class:`Card`) and how
an asker is told a decision (:class:`FollowUps`). Defined beside the desk so that the desk
imports nothing above it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.review.records import Decision, OpenReview, Ticket
from rag import Hit, Problem


@dataclass(frozen=True, slots=True)
class Card:
    """A review card where it was posted. ``question``/``draft`` are what the platform read
    back from the card (the copy of record when the review store has forgotten it);
    ``shown`` is the card as the platform has it (Slack: its blocks), opaque to the desk."""

    channel: str
    ts: str
    question: str = ""
    draft: str = ""
    shown: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class NewCard:
    """A card to post: an unverified draft (``ticket.kind == "review"``) or a question a
    person should answer (``"gap"``). ``sources``: (label, score, link) per numbered source."""

    ticket: Ticket
    question: str
    draft: str = ""
    problems: tuple[Problem, ...] = ()
    """What the checker found (the card groups them by sentence)."""
    sources: tuple[tuple[str, float, str | None], ...] = ()
    conversation: tuple[str, ...] = ()
    """A follow-up's earlier standalone questions, oldest first (the card shows them)."""
    asked: str = ""
    """A follow-up as the person wrote it, when it was rewritten into ``question``."""
    votes: tuple[tuple[str, str], ...] = ()
    """On a card for an answer people voted down (``draft``: that answer): (voter, what was
    wrong) for each 👎."""
    compared: tuple[tuple[str, str], ...] = ()
    """For two current documents that disagree (a ``conflict`` problem): (``[n] label · date``,
    passage) of each, which the card shows side by side."""


@dataclass(frozen=True, slots=True)
class PostedCard:
    card: Card
    link: str = ""
    """A link to the card, for the list of open reviews (empty when unknown)."""


class ReviewBoard(Protocol):
    async def post_card(self, new: NewCard) -> PostedCard:
        """Post ``new`` where reviewers work; raises when the platform refuses."""

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
        """Redraw ``card`` as decided (``sent``: what the asker got, if not the draft)."""

    async def members(self) -> frozenset[str] | None:
        """Who is in the reviewers' channel; ``None`` when the platform cannot say now."""


class FollowUps(Protocol):
    async def follow_up(
        self, ticket: Ticket, decision: Decision, *, question: str, text: str, hits: tuple[Hit, ...]
    ) -> bool:
        """Tell the asker (``ticket``'s thread) the decision; ``False`` when unreachable."""


async def post_for_review(board: ReviewBoard, new: NewCard) -> OpenReview:
    """Post ``new`` on ``board``; the open review that says where its card went (for the
    review state, which App Home lists and a later decision finds the card by)."""
    posted = await board.post_card(new)
    card = posted.card
    return OpenReview(
        new.ticket, new.question, new.draft, card.channel, card.ts, posted.link, new.problems
    )
