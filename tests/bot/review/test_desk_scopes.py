"""The review desk keeps every ticket, and what reviewers decide, in the asker's scope."""

from __future__ import annotations

import itertools
from dataclasses import replace

from bot.ports import Card
from bot.review.desk import ReviewDesk
from bot.review.records import Ticket
from bot.review.state import ReviewState
from bot.slack.limits import BUTTON_VALUE
from rag.results import Refusal
from rag.reviewed.answers import ReviewedAnswers
from tests.bot.review.test_desk import DRAFT, ORIGIN, _Index, _Platform

HR = "hr+public@0a1b2c3d"
PUBLIC = "public@4e5f6a7b"


def desk_with(platform: _Platform, reviewed: ReviewedAnswers) -> ReviewDesk:
    ids = (f"r{n}" for n in itertools.count(1))
    return ReviewDesk(
        platform, platform, ReviewState(None), _Index(), reviewed=reviewed, new_id=lambda: next(ids)
    )


async def test_a_review_card_carries_the_askers_scope_and_its_approval_stays_there() -> None:
    platform, reviewed = _Platform(), ReviewedAnswers.in_memory()
    desk = desk_with(platform, reviewed)
    await desk.submit_unverified(DRAFT, replace(ORIGIN, scope=HR))
    [new] = platform.posted
    assert new.ticket.scope == HR
    assert Ticket.from_value(new.ticket.to_value(BUTTON_VALUE)).scope == HR
    decided = await desk.decide(
        new.ticket,
        Card("creview", "1.0"),
        verdict="approved",
        reviewer="urev",
        question=DRAFT.question,
        draft=DRAFT.draft,
        text=DRAFT.draft,
    )
    assert decided is None
    assert await reviewed.lookup(DRAFT.question, scope=HR, index=_Index()) is not None
    assert await reviewed.lookup(DRAFT.question, scope=PUBLIC, index=_Index()) is None


async def test_ask_a_human_keeps_the_scope_from_the_refusal_to_the_colleagues_answer() -> None:
    platform, reviewed = _Platform(), ReviewedAnswers.in_memory()
    desk = desk_with(platform, reviewed)
    refusal = Refusal("火星天气？", "这件事资料里没写。", ())
    ask = desk.ask_human_ticket(refusal, replace(ORIGIN, scope=HR, question="火星天气？"))
    assert ask.scope == HR
    assert await desk.ask_human(Ticket.from_value(ask.to_value(BUTTON_VALUE)), Card("chat1", "9.0"))
    [gap] = platform.posted
    assert gap.ticket.scope == HR
    await desk.decide(
        gap.ticket,
        Card("creview", "1.0"),
        verdict="answered",
        reviewer="urev",
        question="火星天气？",
        text="问问前台。",
    )
    assert await reviewed.lookup("火星天气？", scope=HR, index=_Index()) is not None
    assert await reviewed.lookup("火星天气？", scope=PUBLIC, index=_Index()) is None


async def test_a_colleagues_answer_to_a_question_too_long_for_a_button_is_reused() -> None:
    """The "Ask a human" button carries the question shortened and its digest whole: the
    answer is filed under the question the asker asked, not under what the button kept."""
    platform, reviewed = _Platform(), ReviewedAnswers.in_memory()
    desk = desk_with(platform, reviewed)
    question = "火星天气怎么样？" * 300
    refusal = Refusal(question, "这件事资料里没写。", ())
    ask = desk.ask_human_ticket(refusal, replace(ORIGIN, scope=HR, question=question))
    carried = Ticket.from_value(ask.to_value(BUTTON_VALUE))
    assert carried.question != question
    assert await desk.ask_human(carried, Card("chat1", "9.0"))
    [gap] = platform.posted
    await desk.decide(
        Ticket.from_value(gap.ticket.to_value(BUTTON_VALUE)),
        Card("creview", "1.0"),
        verdict="answered",
        reviewer="urev",
        question=gap.question,
        text="问问前台。",
    )
    assert await reviewed.lookup(question, scope=HR, index=_Index()) is not None
