"""What a review is made of — ticket, decision, open review — and how each is written down.

The values are plain dataclasses the desk and the platforms pass around; what leaves the
process goes through a pydantic record (:class:`rag.Record`: strict, versioned), so a value
written by one release is read back exactly by the next, or refused with one line naming the
field — never half-read:

- a :class:`Ticket` rides on every card button (Slack's ``value``, Feishu's callback value):
  compact keys, ``{"v": 1, "r", "k", "c", "t", "u", "m", "s", "a", "h", "q", "d"}`` (``q``
  and ``d``, the question and its digest, only when there are). Cards stay
  in channels for months, so this layout is read as long as any card may carry it.
- a :class:`Decision` is the exactly-once guard's value in Redis:
  ``{"v": 1, "verdict", "reviewer", "at", "reason"}``. Decisions stored before records were
  versioned have the same fields without ``v`` and are read as layout 1.
- an :class:`OpenReview` is what App Home lists while a review is open:
  ``{"v": 2, "ticket": {ticket layout}, "question", "draft", "card_channel", "card_ts",
  "permalink", "problems": [{"kind", "message", "sentence", "refs", "note"}]}``. Layout 1 had
  no ``v``, the ticket as its button string and problems as strings (the desk never filled
  them): reviews open during an upgrade are read from it, so none is lost.

A stored decision or open review that cannot be read is reported by :class:`RecordError`
(callers drop it with one warning per process; see :mod:`bot.review.state`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError, field_validator

from bot.origin import AskedIn
from bot.values import ValueTooLong, fitted
from rag import CitebotError, Problem, ProblemRecord, Record, check_version, validation_error

logger = logging.getLogger(__name__)

Kind = Literal["review", "gap"]
ReviewOutcome = Literal["approved", "edited", "rejected", "answered", "dismissed"]
"""What a reviewer decided (a result's verdict is :data:`rag.results.Verdict`)."""

TICKET_LAYOUT = 1
DECISION_LAYOUT = 1
OPEN_REVIEW_LAYOUT = 2


class TicketError(CitebotError, ValueError):
    """A button value or modal metadata that is not one of ours (or from an old version)."""


class RecordError(CitebotError, ValueError):
    """A stored decision or open review this code cannot read; the message names the field."""


@dataclass(frozen=True, slots=True)
class Ticket:
    """What a card's buttons carry: enough to deliver a decision with no server state."""

    review_id: str
    kind: Kind
    channel: str
    """Where the question was asked."""
    thread_ts: str
    """The asker's thread: decisions are posted there."""
    asker: str
    message_ts: str = ""
    """The question's own message (for its permalink)."""
    scope: str = "all"
    created: float = 0.0
    """When the draft (or the request for a human) was made, epoch seconds."""
    sources: tuple[tuple[str, str, float], ...] = ()
    """(chunk id, content hash, score) of each numbered source, in order."""
    question: str = ""
    """Only on "Ask a human" buttons (the refusal message does not show the question)."""
    digest: str = ""
    """The question's :func:`rag.question_digest`, whole even when the question had to be
    shortened to fit a button: what a reviewed answer or a rejection is filed under."""

    @classmethod
    def opened(
        cls,
        review_id: str,
        kind: Kind,
        where: AskedIn,
        *,
        created: float = 0.0,
        sources: tuple[tuple[str, str, float], ...] = (),
        question: str = "",
        digest: str = "",
    ) -> Ticket:
        """The one way a new ticket is made: for the question asked ``where``."""
        thread = (where.channel, where.thread_ts, where.asker, where.message_ts, where.scope)
        return cls(review_id, kind, *thread, created, sources, question, digest)

    def to_value(self, limit: int) -> str:
        """Compact JSON within the platform's ``limit`` on a button value: trailing sources
        dropped, then the question shortened, if needed."""
        sources = [(cid, digest, round(score, 4)) for cid, digest, score in self.sources]

        def render(kept: Sequence[tuple[str, str, float]], question: str) -> str:
            return TicketRecord.of(self, tuple(kept), question).value()

        try:
            return fitted(render, sources, self.question, limit)
        except ValueTooLong as error:
            msg = f"ticket for review {self.review_id}: {error}"
            raise TicketError(msg) from None

    @classmethod
    def from_value(cls, value: str) -> Ticket:
        try:
            return TicketRecord.model_validate_json(value).ticket()
        except ValidationError as error:
            msg = f"not a review ticket ({validation_error('value', error)}): {value[:80]!r}"
            raise TicketError(msg) from None


@dataclass(frozen=True, slots=True)
class Decision:
    verdict: ReviewOutcome
    reviewer: str
    at: float
    """Epoch seconds."""
    reason: str = ""

    def to_json(self) -> str:
        return DecisionRecord(**_fields(self)).model_dump_json()

    @classmethod
    def from_json(cls, raw: str | bytes) -> Decision:
        """Raises :class:`RecordError` for a value that is not a decision of a known layout."""
        try:
            record = DecisionRecord.model_validate_json(raw)
        except ValidationError as error:
            raise RecordError(validation_error("decision", error)) from None
        return cls(record.verdict, record.reviewer, record.at, record.reason)


@dataclass(frozen=True, slots=True)
class OpenReview:
    """An undecided review as App Home lists it (and the draft when Redis still has it)."""

    ticket: Ticket
    question: str
    draft: str = ""
    card_channel: str = ""
    card_ts: str = ""
    permalink: str = ""
    problems: tuple[Problem, ...] = field(default=())

    def to_json(self) -> str:
        return OpenReviewRecord.of(self).model_dump_json()

    @classmethod
    def from_json(cls, raw: str | bytes) -> OpenReview:
        """Reads the current layout and layout 1; raises :class:`RecordError` otherwise."""
        try:
            return OpenReviewRecord.model_validate_json(raw).review()
        except ValidationError as error:
            try:
                return LegacyOpenReview.model_validate_json(raw).review()
            except ValidationError:
                raise RecordError(validation_error("open review", error)) from None


def _fields(value: Decision) -> dict[str, Any]:
    return {name: getattr(value, name) for name in Decision.__dataclass_fields__}


class TicketRecord(Record):
    model_config = ConfigDict(validate_by_name=True, serialize_by_alias=True)

    v: int
    review_id: str = Field(validation_alias="r", serialization_alias="r")
    kind: Kind = Field(validation_alias="k", serialization_alias="k")
    channel: str = Field(validation_alias="c", serialization_alias="c")
    thread_ts: str = Field(validation_alias="t", serialization_alias="t")
    asker: str = Field(validation_alias="u", serialization_alias="u")
    message_ts: str = Field("", validation_alias="m", serialization_alias="m")
    scope: str = Field("all", validation_alias="s", serialization_alias="s")
    created: float = Field(0.0, validation_alias="a", serialization_alias="a")
    sources: tuple[tuple[str, str, float], ...] = Field(
        (), validation_alias="h", serialization_alias="h"
    )
    question: str = Field("", validation_alias="q", serialization_alias="q")
    """Written only when there is one (a review card's buttons don't repeat it)."""
    digest: str = Field("", validation_alias="d", serialization_alias="d")
    """Written only when there is one; readers before it ignore it."""

    @field_validator("v")
    @classmethod
    def _readable(cls, version: int) -> int:
        return check_version(version, TICKET_LAYOUT)

    @classmethod
    def of(
        cls, ticket: Ticket, sources: tuple[tuple[str, str, float], ...], question: str
    ) -> TicketRecord:
        written = {"created": round(ticket.created, 3), "sources": sources, "question": question}
        return cls(v=TICKET_LAYOUT, **{**asdict(ticket), **written})

    def value(self) -> str:
        empty = {name for name in ("question", "digest") if not getattr(self, name)}
        data = self.model_dump(mode="json", exclude=empty)
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    def ticket(self) -> Ticket:
        return Ticket(**self.model_dump(exclude={"v"}, by_alias=False))


class DecisionRecord(Record):
    v: int = DECISION_LAYOUT
    """Absent in decisions stored before records were versioned: the same layout."""
    verdict: ReviewOutcome
    reviewer: str
    at: float
    reason: str = ""

    @field_validator("v")
    @classmethod
    def _readable(cls, version: int) -> int:
        return check_version(version, DECISION_LAYOUT)


class OpenReviewRecord(Record):
    v: int
    ticket: TicketRecord
    question: str
    draft: str = ""
    card_channel: str = ""
    card_ts: str = ""
    permalink: str = ""
    problems: tuple[ProblemRecord, ...] = ()

    @field_validator("v")
    @classmethod
    def _readable(cls, version: int) -> int:
        return check_version(version, OPEN_REVIEW_LAYOUT)

    @classmethod
    def of(cls, review: OpenReview) -> OpenReviewRecord:
        ticket = review.ticket
        return cls(
            v=OPEN_REVIEW_LAYOUT,
            ticket=TicketRecord.of(ticket, ticket.sources, ticket.question),
            question=review.question,
            draft=review.draft,
            card_channel=review.card_channel,
            card_ts=review.card_ts,
            permalink=review.permalink,
            problems=tuple(ProblemRecord.of(problem) for problem in review.problems),
        )

    def review(self) -> OpenReview:
        return OpenReview(
            self.ticket.ticket(),
            self.question,
            self.draft,
            self.card_channel,
            self.card_ts,
            self.permalink,
            tuple(problem.problem() for problem in self.problems),
        )


class LegacyOpenReview(Record):
    """Layout 1: no version, the ticket as its button string, problems as (unused) strings."""

    model_config = ConfigDict(extra="forbid")

    ticket: str
    question: str
    draft: str = ""
    card_channel: str = ""
    card_ts: str = ""
    permalink: str = ""
    problems: tuple[str, ...] = ()

    def review(self) -> OpenReview:
        try:
            ticket = Ticket.from_value(self.ticket)
        except TicketError as error:
            raise RecordError(str(error)) from None
        # Problems as strings have no sentence to group them by; the desk never stored any.
        return OpenReview(
            ticket, self.question, self.draft, self.card_channel, self.card_ts, self.permalink
        )
