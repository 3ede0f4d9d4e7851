"""Votes on answers, and what two 👎 do (platform-neutral).

A platform's feedback buttons (Slack: ``feedback_buttons`` in a ``context_actions`` block) send
a :class:`Vote`; :meth:`Feedback.cast` keeps it in the vote store (:func:`rag.vote_store`:
Redis when set, this process otherwise; one vote per person per answer, a second click changes
it) with the answer's cited passages, scope and index version, and the standalone question —
its text only under RECORD_QUESTIONS, as for refused questions, always its key — and writes
one structured log line per vote on ``citebot.feedback`` (the question's hash; its text only
under LOG_QUESTIONS, like every question line). A 👎 may carry a "what was wrong" note
(:meth:`Feedback.note`).

When 👎 from two different people are on one answer — cached, reviewed or freshly generated
alike — it is withdrawn (:class:`bot.ports.Withdrawer`: out of the cache, a reviewed one
forgotten, the text kept from being served again until a reviewer approves it) and posted to
the review desk as a knowledge-gap card with the votes (:mod:`bot.voted`). Once per
answer across processes: the first process to claim it (Redis ``SET NX``) does both.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.ports import SourceIndex, Withdrawer
from bot.questionlog import question_hash
from bot.review.desk import ReviewDesk
from bot.voted import VotedDown, VotedDownCard
from rag import (
    Answer,
    GuardedRedis,
    Settings,
    VoteRecord,
    VoteStore,
    VoteVerdict,
    Withdrawal,
    question_key,
    vote_store,
)

logger = logging.getLogger("citebot.feedback")

DOWN_VOTES_TO_WITHDRAW = 2


@dataclass(frozen=True, slots=True)
class Vote:
    answer: str
    """Which answer (Slack: channel and message ts)."""
    user: str
    verdict: VoteVerdict
    question: str
    """The standalone question the answer was given to."""
    text_hash: str = ""
    """The answer text's :func:`rag.answer_hash`."""
    sources: tuple[str, ...] = ()
    """The cited passages' ids."""
    index_version: str = ""
    served_from: str = ""
    """``cache`` or ``reviewed`` when the answer was not freshly generated."""
    scope: str | None = None
    """The asker's scope key; ``None`` for an answer whose buttons don't say (not withdrawn)."""
    asker: str = ""
    digest: str = ""
    """The question's :func:`rag.question_digest`: which answer to withdraw when the buttons
    could only carry the question shortened."""


@dataclass(frozen=True, slots=True)
class Where:
    """Where the voted answer is shown, for the card: its thread, and its text as shown (what
    the card says when the cache no longer holds the answer)."""

    channel: str
    thread_ts: str
    message_ts: str
    shown_text: str = ""


class Feedback:
    def __init__(
        self,
        store: VoteStore,
        *,
        withdrawer: Withdrawer | None = None,
        voted_down: VotedDown | None = None,
        index: SourceIndex | None = None,
        record_questions: bool = True,
        log_questions: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.withdrawer = withdrawer
        self.voted_down = voted_down
        self.index = index
        self.record_questions = record_questions
        self.log_questions = log_questions
        self.clock = clock
        self._claimed: set[str] = set()

    async def cast(self, vote: Vote, where: Where) -> list[VoteRecord]:
        """Keep ``vote``; every vote on its answer now. Withdraws the answer on the second
        person's 👎."""
        votes = await self.store.cast(self._record(vote))
        self._log(vote, votes)
        downs = [v for v in votes if v.verdict == "down"]
        if vote.verdict == "down" and len(downs) >= DOWN_VOTES_TO_WITHDRAW:
            await self._withdraw(vote, where, downs)
        return votes

    async def note(self, answer: str, user: str, note: str) -> bool:
        """Add ``user``'s "what was wrong" to their 👎 on ``answer`` (and to its card, if the
        answer is withdrawn already); ``False`` when they have no 👎 there."""
        if not note.strip():
            return False
        votes = await self.store.annotate(answer, user, note)
        if votes is None:
            return False
        logger.info("%s", json.dumps({"event": "feedback_note", "answer": answer, "user": user}))
        if self.voted_down is not None:
            await self.voted_down.refresh(answer, _down_votes(votes))
        return True

    def _record(self, vote: Vote) -> VoteRecord:
        return VoteRecord(
            at=self.clock(),
            answer=vote.answer,
            user=vote.user,
            verdict=vote.verdict,
            hash=question_key(vote.question),
            text=vote.question if self.record_questions else None,
            scope=vote.scope or "",
            sources=vote.sources,
            index_version=vote.index_version,
            served_from=vote.served_from,
        )

    async def _withdraw(self, vote: Vote, where: Where, downs: Sequence[VoteRecord]) -> None:
        if vote.scope is None:
            logger.warning("answer %s voted down, but its buttons name no scope", vote.answer)
            return
        if not await self._claim(vote.answer):
            return  # another click (or process) withdrew it already
        by = "👎 " + ", ".join(v.user for v in downs)
        withdrawn = None
        if self.withdrawer is not None:
            withdrawal = Withdrawal(
                vote.question, vote.scope, vote.index_version, vote.text_hash, by, vote.digest
            )
            withdrawn = await self.withdrawer.withdraw(withdrawal)
        line = {"event": "withdrawn", "answer": vote.answer, "down": len(downs)}
        logger.info("%s", json.dumps({**line, "question_hash": question_hash(vote.question)}))
        if self.voted_down is not None:
            await self.voted_down.post(self._card(vote, where, withdrawn, downs))

    async def _claim(self, answer: str) -> bool:
        if self.voted_down is not None:
            return await self.voted_down.claim(answer)
        if answer in self._claimed:
            return False
        self._claimed.add(answer)
        return True

    def _card(
        self, vote: Vote, where: Where, withdrawn: Answer | None, downs: Sequence[VoteRecord]
    ) -> VotedDownCard:
        if withdrawn is not None:
            text = withdrawn.text
            cited = [withdrawn.hits[n - 1].chunk for n in withdrawn.cited]
        else:
            text = where.shown_text
            found = (self.index.chunk(i) if self.index else None for i in vote.sources)
            cited = [chunk for chunk in found if chunk is not None]
        return VotedDownCard(
            answer=vote.answer,
            channel=where.channel,
            thread_ts=where.thread_ts,
            message_ts=where.message_ts,
            asker=vote.asker,
            scope=vote.scope or "all",
            question=vote.question,
            text=text,
            sources=tuple((chunk.label(), chunk.link) for chunk in cited),
            votes=_down_votes(downs),
            digest=vote.digest,
        )

    def _log(self, vote: Vote, votes: Sequence[VoteRecord]) -> None:
        data: dict[str, object] = {
            "event": "feedback",
            "answer": vote.answer,
            "verdict": vote.verdict,
            "question_hash": question_hash(vote.question),
            "sources": list(vote.sources),
            "index_version": vote.index_version,
            "served_from": vote.served_from or None,
            "up": sum(1 for v in votes if v.verdict == "up"),
            "down": sum(1 for v in votes if v.verdict == "down"),
        }
        if self.log_questions:
            data["question"] = vote.question
        logger.info("%s", json.dumps(data, ensure_ascii=False))


def feedback_for(
    settings: Settings,
    *,
    redis: GuardedRedis | None,
    answerer: object,
    desk: ReviewDesk | None,
    index: SourceIndex,
) -> Feedback:
    """The feedback loop as ``python -m bot`` wires it: votes in Redis (else under INDEX_DIR),
    kept RETENTION_DAYS, questions kept under RECORD_QUESTIONS, withdrawals through the
    answerer, cards on ``desk`` (none without a review desk)."""
    return Feedback(
        vote_store(redis, retention_days=settings.retention_days, index_dir=settings.index_dir),
        withdrawer=answerer if isinstance(answerer, Withdrawer) else None,
        voted_down=None if desk is None else VotedDown(desk.board, desk.state),
        index=index,
        record_questions=settings.record_questions,
        log_questions=settings.log_questions,
    )


def _down_votes(votes: Sequence[VoteRecord]) -> tuple[tuple[str, str], ...]:
    return tuple((v.user, v.note) for v in votes if v.verdict == "down")
