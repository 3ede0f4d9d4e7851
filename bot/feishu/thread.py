"""The asker's thread in Feishu (:class:`bot.ports.AskerThread`): progress card, then the answer.

    working()  -> reply to the question, in its thread, with a "Looking it up…" card
    reply()    -> the Reply as cards (bot/feishu/cards.py); the progress card is patched into
                  the first, any continuation is replied in the same thread
    failed()   -> the one human sentence in the progress card's place (best effort)

Every reply carries a ``uuid`` derived from the question's message id and the card's position:
should the same question be answered twice anyway (Redis away and two processes each taking
a redelivery), Feishu keeps one message per uuid for an hour. An Open API error becomes
:class:`bot.ports.Unreachable` (``feishu:<code>``), logged by the answering core.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from bot import texts
from bot.feishu.api import FeishuApi
from bot.feishu.cards import TICKET_CHARS, Card, answer_cards, button, refusal_cards, text_cards
from bot.feishu.messages import Asked
from bot.ports import Reply, Unreachable
from bot.review.texts import texts_for
from rag import HTTP_ERRORS, Answer, HttpError, Language, Stage, http_reason, model_failure_text

logger = logging.getLogger(__name__)


def reply_uuid(message_id: str, purpose: str) -> str:
    """At most 50 characters, as the reply API requires; stable across processes."""
    digest = hashlib.sha256(f"{message_id}|{purpose}".encode()).hexdigest()[:40]
    return f"cb-{digest}"


def render(reply: Reply) -> list[Card]:
    if isinstance(reply.result, Answer):
        return answer_cards(reply.result, reply.language, notice=reply.notice)
    if reply.result is not None:
        ask = None
        if reply.ask_human is not None:
            words = texts_for(reply.ask_human.question or reply.result.question)
            value: dict[str, Any] = {"k": "ask", "t": reply.ask_human.to_value(TICKET_CHARS)}
            ask = button(words.ask_human, value)
        return refusal_cards(reply.result, reply.language, ask_human=ask, notice=reply.notice)
    return text_cards(reply.text, notice=reply.notice)


class FeishuThread:
    def __init__(self, api: FeishuApi, asked: Asked) -> None:
        self.api = api
        self.asked = asked
        self.progress = ""

    async def working(self, language: Language) -> None:
        [card] = text_cards(texts.WORKING[language])
        self.progress = await self._reply(card, "working")

    def reached(self, stage: Stage, language: Language) -> None:
        """The progress card says "Looking it up…" throughout: patching it per stage would
        cost an Open API call each for little news."""

    async def reply(self, reply: Reply) -> int:
        cards = render(reply)
        first, *rest = cards
        if self.progress:
            await self._replace_progress(first)
        else:
            await self._reply(first, "answer-0")
        for position, card in enumerate(rest, start=1):
            await self._reply(card, f"answer-{position}")
        return len(cards)

    async def failed(self, language: Language) -> None:
        [card] = text_cards(model_failure_text(language))
        try:
            if self.progress:
                await self.api.patch(self.progress, card)
            else:
                await self._reply(card, "failed")
        except (*HTTP_ERRORS, Unreachable):
            logger.exception("could not tell %s that answering failed", self.asked.chat_id)

    async def _reply(self, card: Card, purpose: str) -> str:
        try:
            return await self.api.reply(
                self.asked.message_id,
                card,
                uuid=reply_uuid(self.asked.message_id, purpose),
                chat=self.asked.chat_id,
            )
        except HTTP_ERRORS as error:
            raise Unreachable(http_reason(error)) from error

    async def _replace_progress(self, first: Card) -> None:
        try:
            await self.api.patch(self.progress, first)
        except HttpError as error:
            # Refused (deleted, too old, too large): reply instead, so the asker gets it.
            logger.warning(
                "patching progress card %s in %s failed (%s); replying instead",
                self.progress,
                self.asked.chat_id,
                http_reason(error),
            )
            await self._reply(first, "answer-0")
