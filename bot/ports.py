"""The seams between the platform-neutral bot and a chat platform, as small interfaces.

Nothing here knows Slack. A platform (``bot/slack/``, ``bot/feishu/``, the terminal's
``bot/console.py``) implements the *platform side* and hands it to the neutral core; the
composition root wires them.

Answer core side (implemented by :class:`rag.pipeline.Pipeline`, stubbed in tests):

- :class:`Answerer` — ``answer(question) -> Answer | Refusal | Unverified``, plus its index.
- :class:`SourceIndex` — the slice of the index the edges read (citation clicks, health).

Platform side, for answering (:mod:`bot.answering` drives it, one object per question):

- :class:`AskerThread` — the asker's conversation: ``working(language)`` shows progress (Slack: a
  thread status, else a "Looking it up…" placeholder; Feishu: a reply in the thread),
  ``reached(stage, language)`` follows the answer's stages, ``reply(reply)`` shows the
  :class:`Reply` (in place of the progress note when there is one) and returns how many
  messages that took, ``failed(language)`` puts the one human failure sentence there and never
  raises. A platform that cannot deliver raises :class:`Unreachable` (logged, not retried).

Platform side, for the review desk (:mod:`bot.review.desk` drives it, one object per app;
defined in :mod:`bot.review.board`, beside the desk, and re-exported here):

- :class:`ReviewBoard` — where reviewers work (Slack: REVIEW_CHANNEL; Feishu: a reviewers'
  group): ``post_card`` posts an interactive card for a :class:`NewCard` and returns the
  :class:`Card` it became (raises when it cannot); ``close_card`` redraws a card as decided
  (outcome, reviewer, time, no buttons; never raises); ``members`` lists who is in the
  reviewers' channel (``None`` when the platform cannot say).
- :class:`FollowUps` — ``follow_up(ticket, decision, ...)`` tells the asker, in their thread,
  what a reviewer decided; ``False`` when their thread cannot be reached.

Neutral core side, used by a platform's listeners: :class:`ReviewHooks` is what the answering
core needs from the desk (submit a draft, offer "Ask a human" under a refusal). The buttons'
payload is a :class:`~bot.review.records.Ticket`, which a platform renders as its button value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from bot.origin import Origin as Origin
from bot.review.board import Card as Card
from bot.review.board import FollowUps as FollowUps
from bot.review.board import NewCard as NewCard
from bot.review.board import PostedCard as PostedCard
from bot.review.board import ReviewBoard as ReviewBoard
from bot.review.records import Ticket
from rag import (
    Answer,
    Chunk,
    CitebotError,
    Language,
    Progress,
    Refusal,
    Result,
    Stage,
    Unverified,
    Withdrawal,
)


class SourceIndex(Protocol):
    @property
    def version(self) -> str: ...

    @property
    def chunks(self) -> tuple[Chunk, ...]: ...

    def __len__(self) -> int: ...

    def chunk(self, chunk_id: str) -> Chunk | None: ...


class Answerer(Protocol):
    @property
    def index(self) -> SourceIndex: ...

    async def answer(
        self,
        question: str,
        *,
        scope: str = ...,
        progress: Progress | None = None,
        language: Language | None = None,
    ) -> Result:
        """``language``: the asker's, detected once by the edge and carried down."""


@runtime_checkable
class Withdrawer(Protocol):
    """The answer core's side of two 👎 (:meth:`rag.Pipeline.withdraw`)."""

    async def withdraw(self, withdrawal: Withdrawal) -> Answer | None: ...


class Unreachable(CitebotError):
    """The platform refused or could not deliver a message; ``str(error)`` names why
    (e.g. ``slack:not_in_channel``). Telling the asker again would fail the same way."""


@dataclass(frozen=True, slots=True)
class Answered:
    """What the feedback buttons under an answer carry, so a vote needs no lookup."""

    asker: str
    scope: str
    index_version: str


@dataclass(frozen=True, slots=True)
class Reply:
    """What the asker is shown: a result to render, or a fixed sentence."""

    language: Language
    result: Answer | Refusal | None = None
    """Rendered by the platform (citations, buttons, provenance)."""
    text: str = ""
    """A fixed sentence (help, failure, "a colleague is reviewing it") when ``result`` is None."""
    notice: str = ""
    """Shown above the reply (e.g. the question was cut)."""
    ask_human: Ticket | None = None
    """Under a refusal: the payload of an "Ask a human" button (``None``: no button)."""
    answered: Answered | None = None
    """Under an answer: who asked, where and on which index (for the feedback buttons)."""
    in_review: bool = False
    """``text`` says the draft went to the review desk (the console says what it does instead)."""


class AskerThread(Protocol):
    async def working(self, language: Language) -> None:
        """Show the asker their question is being worked on."""

    def reached(self, stage: Stage, language: Language) -> None:
        """The answer reached ``stage``: show it if the platform can (never blocks)."""

    async def reply(self, reply: Reply) -> int:
        """Show ``reply`` (in place of the progress note, if any); how many messages it took."""

    async def failed(self, language: Language) -> None:
        """Best effort: the one human failure sentence in place of the progress note."""


class ReviewHooks(Protocol):
    async def submit_unverified(self, result: Unverified, origin: Origin) -> None:
        """Queue the draft for reviewers; the asker gets the honest note."""

    def ask_human_ticket(self, result: Refusal, origin: Origin) -> Ticket | None:
        """The payload of the "Ask a human" button shown under a refusal (``None``: no button,
        as in the console, whose operator is the only human there)."""
