"""The review desk against a recording platform (no Slack): what a second platform's
ReviewBoard and FollowUps are asked to do, and the exactly-once guard around them."""

from __future__ import annotations

import itertools

import pytest

from bot.ports import Card, NewCard, Origin, PostedCard
from bot.review.desk import DeliveryFailed, ReviewDesk
from bot.review.records import Decision, Ticket
from bot.review.state import ReviewState
from rag.chunks import Chunk
from rag.problems import Problem
from rag.results import Hit, Unverified

CHUNK = Chunk(source="refund.md", text="退费按剩余课时计算。", n=0)
PROBLEM = Problem(
    "unsupported_claim",
    "所引资料 [1] 里找不到这句话的大部分内容：「按课时退[1]。」",
    "按课时退[1]。",
    refs=(1,),
    note="所引资料 [1] 里找不到这句话的大部分内容",
)
DRAFT = Unverified("退费怎么算？", "按课时退[1]。", (PROBLEM,), (Hit(CHUNK, 0.8),))
ORIGIN = Origin("chat1", "t1", "m1", "uasker", "im", "退费怎么算？", "all")


class _Index:
    def chunk(self, chunk_id: str) -> Chunk | None:
        return CHUNK if chunk_id == CHUNK.id else None


class _Platform:
    def __init__(self, members: frozenset[str] | None = frozenset({"urev"})) -> None:
        self.posted: list[NewCard] = []
        self.closed: list[tuple[Card, Decision, str]] = []
        self.told: list[tuple[Ticket, Decision, str, tuple[Hit, ...]]] = []
        self.reachable = True
        self._members = members
        self._ts = itertools.count(1)

    async def post_card(self, new: NewCard) -> PostedCard:
        self.posted.append(new)
        return PostedCard(Card("creview", f"{next(self._ts)}.0"), link="https://example/card")

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
        self.closed.append((card, decision, sent))

    async def members(self) -> frozenset[str] | None:
        return self._members

    async def follow_up(
        self, ticket: Ticket, decision: Decision, *, question: str, text: str, hits: tuple[Hit, ...]
    ) -> bool:
        if not self.reachable:
            return False
        self.told.append((ticket, decision, text, hits))
        return True


def desk_on(platform: _Platform) -> ReviewDesk:
    ids = (f"r{n}" for n in itertools.count(1))
    return ReviewDesk(platform, platform, ReviewState(None), _Index(), new_id=lambda: next(ids))


async def test_a_draft_becomes_a_card_and_an_open_review() -> None:
    platform = _Platform()
    desk = desk_on(platform)
    await desk.submit_unverified(DRAFT, ORIGIN)
    [new] = platform.posted
    assert (new.ticket.kind, new.ticket.channel, new.ticket.asker) == ("review", "chat1", "uasker")
    assert (new.question, new.draft, new.problems) == ("退费怎么算？", "按课时退[1]。", (PROBLEM,))
    [review] = await desk.pending()
    assert (review.card_channel, review.permalink) == ("creview", "https://example/card")
    assert review.problems == (PROBLEM,)  # the desk keeps what the card shows


async def test_a_decision_reaches_the_asker_once_and_closes_the_card() -> None:
    platform = _Platform()
    desk = desk_on(platform)
    await desk.submit_unverified(DRAFT, ORIGIN)
    ticket, card = platform.posted[0].ticket, Card("creview", "1.0")
    first = await desk.decide(
        ticket,
        card,
        verdict="approved",
        reviewer="urev",
        question="退费怎么算？",
        text="按课时退[1]。",
    )
    again = await desk.decide(ticket, card, verdict="dismissed", reviewer="uother", question="q")
    assert first is None
    assert again is not None
    assert (again.verdict, again.reviewer) == ("approved", "urev")
    [(_, decision, text, hits)] = platform.told
    assert (decision.verdict, text, [h.chunk.id for h in hits]) == (
        "approved",
        "按课时退[1]。",
        [CHUNK.id],
    )
    assert [closed.verdict for _, closed, _ in platform.closed] == ["approved"]
    assert await desk.pending() == []


async def test_an_unreachable_asker_leaves_the_review_open_for_another_try() -> None:
    platform = _Platform()
    desk = desk_on(platform)
    await desk.submit_unverified(DRAFT, ORIGIN)
    ticket, card = platform.posted[0].ticket, Card("creview", "1.0")
    platform.reachable = False
    with pytest.raises(DeliveryFailed):
        await desk.decide(ticket, card, verdict="rejected", reviewer="urev", question="q")
    assert await desk.decision(ticket.review_id) is None
    assert platform.closed == []
    platform.reachable = True
    assert (
        await desk.decide(ticket, card, verdict="rejected", reviewer="urev", question="q") is None
    )


async def test_reviewers_are_the_channel_members_and_nobody_when_unknown() -> None:
    assert await desk_on(_Platform()).is_reviewer("urev")
    assert not await desk_on(_Platform()).is_reviewer("uasker")
    assert not await desk_on(_Platform(members=None)).is_reviewer("urev")


async def test_ask_a_human_posts_one_gap_card_per_refusal() -> None:
    platform = _Platform()
    desk = desk_on(platform)
    ask = Ticket(
        "ask", "gap", "chat1", "t1", "uasker", question="火星天气？", sources=((CHUNK.id, "", 0.2),)
    )
    refusal = Card("chat1", "9.0")
    assert await desk.ask_human(ask, refusal)
    assert not await desk.ask_human(ask, refusal)
    [new] = platform.posted
    assert (new.ticket.kind, new.question) == ("gap", "火星天气？")
    assert new.sources == ((CHUNK.label(), 0.2, CHUNK.link),)
