"""One way a ticket is made (:meth:`Ticket.opened`): from an origin, a ticket or a voted-down
answer alike, and a ticket read back from its button value is the ticket that was written."""

from __future__ import annotations

from bot.origin import Origin
from bot.review.records import Ticket

ORIGIN = Origin(
    channel="C0ASK",
    thread_ts="1700000000.000100",
    message_ts="1700000000.000200",
    user="U0ASKER",
    channel_type="channel",
    question="流利级退费怎么算？",
    scope="hr",
)
WHERE = ("C0ASK", "1700000000.000100", "U0ASKER", "1700000000.000200", "hr")


def _where(ticket: Ticket) -> tuple[str, ...]:
    return (ticket.channel, ticket.thread_ts, ticket.asker, ticket.message_ts, ticket.scope)


def test_a_ticket_opened_for_an_origin_carries_where_it_was_asked() -> None:
    ticket = Ticket.opened("r1", "review", ORIGIN, created=5.0, digest="d")
    assert _where(ticket) == WHERE
    assert (ticket.review_id, ticket.kind, ticket.created, ticket.digest) == (
        "r1",
        "review",
        5.0,
        "d",
    )


def test_a_ticket_opened_from_another_keeps_its_place_not_its_sources() -> None:
    ask = Ticket.opened("ask", "gap", ORIGIN, sources=(("c1", "", 0.4),), question="q")
    gap = Ticket.opened("r2", "gap", ask, digest=ask.digest)
    assert _where(gap) == WHERE
    assert (gap.sources, gap.question) == ((), "")


def test_a_ticket_survives_its_button_value() -> None:
    ticket = Ticket.opened(
        "r3", "review", ORIGIN, created=7.5, sources=(("c1", "h1", 0.5),), digest="d"
    )
    assert Ticket.from_value(ticket.to_value(2000)) == ticket
