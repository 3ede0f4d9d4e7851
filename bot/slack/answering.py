"""Answer one question in Slack: placeholder at once, then the answer in its place.

    post "Looking it up…" in the thread   (the asker sees progress within a second)
      -> pipeline.answer(question)
      -> render: Answer | Refusal | Unverified (honest note; draft to the review desk)
      -> chat.update the placeholder with the first message, post any continuation
Any failure after the placeholder — the chat model unreachable (GenerationError), a bug, Slack
refusing the update — ends with one human sentence in its place, never a traceback; the
traceback goes to the log. One structured log line per question (:mod:`bot.questionlog`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot import texts
from bot.ports import Answerer, Origin, ReviewHooks
from bot.questionlog import QuestionLog
from bot.slack.events import Incoming
from bot.slack.reply import SlackMessage, context, plain_message, render_answer, render_refusal
from bot.text import clean_question, cut
from rag import (
    MAX_QUESTION_CHARS,
    Answer,
    GenerationError,
    Language,
    Refusal,
    Result,
    Unverified,
    detect_language,
    model_failure_text,
    refusal_text,
)

logger = logging.getLogger(__name__)

MAX_CONCURRENT_ANSWERS = 8
"""Questions answered at once per process; the rest wait (their placeholder already shown).
Answering is mostly CPU on this event loop, so more at once only makes Slack's acks wait:
with a burst of 200 mentions and no limit, acks queued behind answer work for over a second."""

MAX_PLACEHOLDER_POSTS = 16
"""Placeholder posts in flight at once per process. In a burst every listener starts at once and
its placeholder post competes with Slack's acks for the event loop: with no bound, a burst of 200
mentions (``python -m bench.load --scenario burst``) acked at p99 324–339 ms; with 16, 200–223 ms,
placeholders still shown within 0.4 s (p99); with 8 the placeholders queued towards a second."""


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


class Responder:
    def __init__(
        self,
        answerer: Answerer,
        *,
        review: ReviewHooks | None = None,
        log_questions: bool = False,
        max_question_chars: int = MAX_QUESTION_CHARS,
        max_concurrent: int = MAX_CONCURRENT_ANSWERS,
        max_placeholder_posts: int = MAX_PLACEHOLDER_POSTS,
    ) -> None:
        if max_concurrent < 1:
            msg = f"max_concurrent ({max_concurrent}) must be at least 1"
            raise ValueError(msg)
        if max_placeholder_posts < 1:
            msg = f"max_placeholder_posts ({max_placeholder_posts}) must be at least 1"
            raise ValueError(msg)
        self.answerer = answerer
        self.review = review
        self.log_questions = log_questions
        self.max_question_chars = max_question_chars
        self._slots = asyncio.Semaphore(max_concurrent)
        self._placeholders = asyncio.Semaphore(max_placeholder_posts)

    async def respond(self, client: AsyncWebClient, asked: Incoming) -> None:
        started = time.perf_counter()
        question, was_cut = cut(clean_question(asked.text), self.max_question_chars)
        log = QuestionLog(asked.event_id, asked.channel_type, question, self.log_questions, was_cut)
        language = detect_language(question)
        placeholder = ""
        try:
            if not question:
                log.verdict = "help"
                await self._post(client, asked, plain_message(texts.HELP))
                log.messages = 1
                return
            working = plain_message(texts.WORKING[language])
            async with self._placeholders:
                placeholder = await self._post(client, asked, working)
            log.timings_ms["placeholder"] = _ms(started)
            origin = Origin(
                channel=asked.channel,
                thread_ts=asked.follow_up_thread,
                message_ts=asked.ts,
                user=asked.user,
                channel_type=asked.channel_type,
                question=question,
            )
            queued = time.perf_counter()
            async with self._slots:
                log.timings_ms["queued"] = _ms(queued)
                messages = await self._answer(client, question, origin, language, log)
            if was_cut:
                notice = texts.QUESTION_CUT[language].format(limit=self.max_question_chars)
                first = messages[0]
                messages[0] = SlackMessage(first.text, [context(notice), *first.blocks])
            step = time.perf_counter()
            await self._deliver(client, asked, placeholder, messages)
            log.timings_ms["deliver"] = _ms(step)
            log.messages = len(messages)
        except SlackApiError as error:
            log.error = f"slack:{error.response.get('error')}"
            logger.exception(
                "could not reply in %s (event %s): %s",
                asked.channel,
                asked.event_id,
                error.response.get("error"),
            )
        except Exception:
            log.error = log.error or "unexpected"
            logger.exception("answering event %s failed", asked.event_id)
            if placeholder:
                await self._best_effort_failure(client, asked, placeholder, language)
        finally:
            log.timings_ms["total"] = _ms(started)
            log.emit()

    async def _answer(
        self,
        client: AsyncWebClient,
        question: str,
        origin: Origin,
        language: Language,
        log: QuestionLog,
    ) -> list[SlackMessage]:
        step = time.perf_counter()
        try:
            result = await self.answerer.answer(question)
        except GenerationError as error:
            log.error = f"generation:{error.reason}"
            logger.warning("chat model failed for event %s: %s", log.event_id, error)
            return [plain_message(model_failure_text(language))]
        except Exception:
            log.error = "pipeline"
            logger.exception("answering failed for event %s", log.event_id)
            return [plain_message(model_failure_text(language))]
        finally:
            log.timings_ms["answer"] = _ms(step)
        log.record(result)
        try:
            return await self._render(client, result, origin, language, log)
        except Exception:
            log.error = "render"
            logger.exception("rendering failed for event %s", log.event_id)
            return [plain_message(model_failure_text(language))]

    async def _render(
        self,
        client: AsyncWebClient,
        result: Result,
        origin: Origin,
        language: Language,
        log: QuestionLog,
    ) -> list[SlackMessage]:
        if isinstance(result, Answer):
            return render_answer(result, language)
        if isinstance(result, Refusal):
            extra = self.review.refusal_elements(result, origin) if self.review else []
            return render_refusal(result, extra, language=language)
        if self.review is None:
            # Nobody would follow up, so promising a review would be a lie: refuse instead.
            log.reason = "unverified_without_review"
            return [plain_message(refusal_text(language))]
        return await self._submit(client, result, origin, language, log)

    async def _submit(
        self,
        client: AsyncWebClient,
        result: Unverified,
        origin: Origin,
        language: Language,
        log: QuestionLog,
    ) -> list[SlackMessage]:
        assert self.review is not None
        step = time.perf_counter()
        try:
            await self.review.submit_unverified(client, result, origin)
        except Exception:
            log.error = "review_submit"
            logger.exception("could not queue event %s for review", log.event_id)
            return [plain_message(model_failure_text(language))]
        finally:
            log.timings_ms["review"] = _ms(step)
        return [plain_message(texts.UNVERIFIED[language])]

    async def _best_effort_failure(
        self, client: AsyncWebClient, asked: Incoming, placeholder: str, language: Language
    ) -> None:
        failure = plain_message(model_failure_text(language))
        try:
            await client.chat_update(
                channel=asked.channel, ts=placeholder, text=failure.text, blocks=failure.blocks
            )
        except Exception:
            logger.exception("could not tell %s that answering failed", asked.channel)

    async def _post(self, client: AsyncWebClient, asked: Incoming, message: SlackMessage) -> str:
        extra: dict[str, Any] = {}
        if asked.reply_thread:
            extra["thread_ts"] = asked.reply_thread
        response = await client.chat_postMessage(
            channel=asked.channel,
            text=message.text,
            blocks=message.blocks,
            unfurl_links=False,
            unfurl_media=False,
            **extra,
        )
        return str(response["ts"])

    async def _remove_placeholder(
        self, client: AsyncWebClient, asked: Incoming, placeholder: str
    ) -> None:
        """Best effort: a "Looking it up…" left above the answer would read as still working."""
        try:
            await client.chat_delete(channel=asked.channel, ts=placeholder)
        except SlackApiError as error:
            logger.warning(
                "could not remove placeholder %s in %s (%s)",
                placeholder,
                asked.channel,
                error.response.get("error"),
            )

    async def _deliver(
        self,
        client: AsyncWebClient,
        asked: Incoming,
        placeholder: str,
        messages: Sequence[SlackMessage],
    ) -> None:
        first, *rest = messages
        try:
            await client.chat_update(
                channel=asked.channel, ts=placeholder, text=first.text, blocks=first.blocks
            )
        except SlackApiError as error:
            # The placeholder may have been deleted, or Slack refused the edit: post instead,
            # so the asker still gets the answer.
            logger.warning(
                "chat.update of %s in %s failed (%s); posting the reply instead",
                placeholder,
                asked.channel,
                error.response.get("error"),
            )
            await self._post(client, asked, first)
            if error.response.get("error") != "message_not_found":
                await self._remove_placeholder(client, asked, placeholder)
        for message in rest:
            await self._post(client, asked, message)
