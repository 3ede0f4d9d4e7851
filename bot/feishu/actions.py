"""Card clicks (``card.action.trigger``): a citation, "ask a human", a reviewer's decision.

Feishu waits 3 seconds for the callback's answer, which may carry a toast for the clicker. So:

- a citation click is answered at once with the passage as a toast (looked up in today's index,
  :func:`bot.sources.find`), seen only by whoever clicked — when the place clicked in may see
  its document (SCOPES_FILE): a p2p chat by the clicker's scope, a group by its own; a chat not
  seen since start must pass both;
- "ask a human" posts a knowledge-gap card to the reviewers' group and toasts the result;
- a decision is checked (only reviewers; not already decided), then applied by the review desk
  in a task of its own. If that finishes within ``decide_within`` seconds the clicker gets its
  outcome as a toast; if not, the answer goes back empty and the card, patched by the desk,
  shows the outcome when it is done. Two reviewers clicking together: the desk's exactly-once
  claim lets one win; the other is told who did.

The draft or answer comes with the click (the card's form), so nothing has to be read back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Mapping
from datetime import UTC, datetime
from typing import Any

from bot import texts
from bot.audience import Audiences
from bot.feishu.cards import date
from bot.feishu.review_cards import REASON_FIELD, TEXT_FIELD
from bot.ports import Card, SourceIndex
from bot.review.desk import DeliveryFailed, ReviewDesk
from bot.review.records import Decision, ReviewOutcome, Ticket, TicketError
from bot.review.texts import Texts, texts_for
from bot.sources import Found, SourceRef, dated, find
from rag import Language, detect_language

logger = logging.getLogger(__name__)

Json = dict[str, Any]
Spawn = Callable[[Coroutine[Any, Any, Any]], "asyncio.Task[Any]"]

MAX_CHATS_KEPT = 10_000
"""Chats whose kind (p2p or group) is remembered for citation clicks; forgotten ones must pass
both the group's and the clicker's scope."""
DECIDE_WITHIN_SECONDS = 2.0
"""How long a click waits for the decision before answering Feishu (which allows 3 s)."""
TOAST_PASSAGE = 600
"""Characters of a passage in a toast; the rest is a click on the original away."""
VERDICTS: dict[str, ReviewOutcome] = {
    "approve": "approved",
    "edit": "edited",
    "reject": "rejected",
    "answer": "answered",
    "dismiss": "dismissed",
}


def toast(content: str, kind: str = "info") -> Json:
    return {"toast": {"type": kind, "content": content}}


def already(words: Texts, decision: Decision) -> str:
    return words.already_decided.format(
        reviewer=decision.reviewer,
        date=date(datetime.fromtimestamp(decision.at, UTC)),
        outcome=words.outcomes[decision.verdict],
    )


def passage_toast(n: int, ref: SourceRef, found: Found, language: Language) -> Json:
    first = found.chunks[0] if found.chunks else None
    name = (first.title or first.source) if first else ref.chunk_id.rsplit("#", 1)[0]
    header = f"{texts.SOURCE_HEADER[language].format(n=n)} · {name}"
    if found.state == "gone" or first is None:
        return toast(f"{header}\n{texts.SOURCE_GONE[language]}", "warning")
    passage = "\n".join(chunk.text for chunk in found.chunks)
    if len(passage) > TOAST_PASSAGE:
        passage = passage[: TOAST_PASSAGE - 1].rstrip() + "…"
    lines = [header]
    if found.state == "changed":
        lines.append(texts.SOURCE_CHANGED[language])
    lines.append(passage)
    if first.heading_path:
        lines.append(f"{texts.SOURCE_SECTION[language]}: {first.heading_path}")
    when = dated(first, language)
    if when:
        lines.append(when)
    if first.link:
        lines.append(f"{texts.SOURCE_LINK[language]}: {first.link}")
    return toast("\n".join(lines))


class Actions:
    def __init__(
        self,
        index: SourceIndex,
        desk: ReviewDesk | None,
        *,
        spawn: Spawn,
        decide_within: float = DECIDE_WITHIN_SECONDS,
        audiences: Audiences | None = None,
    ) -> None:
        self.audiences = audiences or Audiences(None)
        self._p2p: dict[str, bool] = {}
        self.index = index
        self.desk = desk
        self.spawn = spawn
        self.decide_within = decide_within

    async def handle(self, payload: Mapping[str, Any]) -> Json:
        """The callback's answer (a toast, or ``{}``)."""
        event = payload.get("event") or {}
        action = event.get("action") or {}
        value = action.get("value")
        if not isinstance(value, dict):
            return {}
        user = str((event.get("operator") or {}).get("open_id", ""))
        where = event.get("context") or {}
        card = Card(str(where.get("open_chat_id", "")), str(where.get("open_message_id", "")))
        kind = str(value.get("k", ""))
        if kind == "source":
            return await self._source(value, card.channel, user)
        if self.desk is None:
            return {}
        try:
            ticket = Ticket.from_value(str(value.get("t", "")))
        except TicketError:
            logger.warning("card click with a foreign value ignored: %r", value)
            return {}
        if kind == "ask":
            return await self._ask(self.desk, ticket, card)
        verdict = VERDICTS.get(kind)
        if verdict is None:
            return {}
        form = action.get("form_value") or {}
        question = str(value.get("q", ""))
        return await self._decide(self.desk, ticket, card, verdict, user, question, form)

    def saw_chat(self, chat_id: str, *, is_dm: bool) -> None:
        """Remember a chat's kind from its messages (a click's callback doesn't carry it)."""
        if len(self._p2p) >= MAX_CHATS_KEPT:
            self._p2p.clear()
        self._p2p[chat_id] = is_dm

    async def _may_see(self, source: str, chat: str, user: str) -> bool:
        kinds = [self._p2p[chat]] if chat in self._p2p else [False, True]
        for is_dm in kinds:
            scope = await self.audiences.place(channel=chat, user=user, is_dm=is_dm)
            if scope is None or not scope.allows(source):
                return False
        return True

    async def _source(self, value: Mapping[str, Any], chat: str, user: str) -> Json:
        try:
            n = int(value["n"])
            ref = SourceRef(str(value["c"]), str(value["h"]), float(value.get("s", 0.0)))
        except (KeyError, TypeError, ValueError):
            return toast(texts.SOURCE_UNREADABLE["zh"], "warning")
        if not await self._may_see(ref.source, chat, user):
            return toast(texts.SOURCE_NOT_HERE["zh"], "warning")
        found = find(ref, self.index.chunk(ref.chunk_id), self.index.chunks)
        sample = found.chunks[0].text if found.chunks else ""
        return passage_toast(n, ref, found, detect_language(sample))

    async def _ask(self, desk: ReviewDesk, ticket: Ticket, card: Card) -> Json:
        words = texts_for(ticket.question)
        if not await desk.ask_human(ticket, card):
            return toast(words.already_asked)
        return toast(words.asked_human, "success")

    async def _decide(
        self,
        desk: ReviewDesk,
        ticket: Ticket,
        card: Card,
        verdict: ReviewOutcome,
        user: str,
        question: str,
        form: Mapping[str, Any],
    ) -> Json:
        stored_question, draft = await desk.contents(ticket, Card(card.channel, card.ts, question))
        question = stored_question or question
        words = texts_for(question)
        if not await desk.is_reviewer(user):
            return toast(words.only_reviewers, "warning")
        earlier = await desk.decision(ticket.review_id)
        if earlier is not None:
            return toast(already(words, earlier))
        text = str(form.get(TEXT_FIELD) or "").strip()
        if verdict in ("approved", "edited", "answered") and not text:
            return toast(words.empty_text, "warning")
        if verdict == "approved" and draft and text != draft.strip():
            verdict = "edited"  # the box was changed before "approve"
        decide = desk.decide(
            ticket,
            Card(card.channel, card.ts, question, draft),
            verdict=verdict,
            reviewer=user,
            question=question,
            draft=draft or (text if verdict != "answered" else ""),
            text=text if verdict in ("approved", "edited", "answered") else "",
            reason=str(form.get(REASON_FIELD) or "").strip() if verdict == "rejected" else "",
        )
        task = self.spawn(decide)
        done, _ = await asyncio.wait({task}, timeout=self.decide_within)
        if not done:
            return {}
        if task.cancelled():
            return {}
        error = task.exception()
        if isinstance(error, DeliveryFailed):
            return toast(words.not_delivered, "error")
        if error is not None:
            return {}  # logged by the task's owner
        result: Decision | None = task.result()
        if result is not None:
            return toast(already(words, result))
        return toast(words.outcomes[verdict], "success")
