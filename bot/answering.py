"""Answer one question for an asker, on any platform: the path after the platform's listener.

    cut the question to MAX_QUESTION_CHARS (the asker is told)
      -> a greeting or thanks ("hello", "你好", "谢谢"): one courteous line, no pipeline
         (in a shared thread the bot answered before, small talk gets no reply at all)
      -> thread.working()                      (the asker sees progress within a second;
                                                thread.reached(stage) as the answer moves on)
      -> the standalone question (rag.Rewriter: rules, or the chat model when configured)
         from the conversation's earlier questions; remembered as its latest turn
      -> pipeline.answer(standalone question)
      -> Answer | Refusal (with "Ask a human" when a review desk runs)
         | Unverified (draft to the review desk; the asker gets the honest note)
      -> thread.reply(...)
The chat model being unreachable (GenerationError) is expected and answered with the one human
sentence. Anything unexpected, at any step, is caught once here: logged with its traceback and
answered with the same sentence in place of the progress note, never a traceback. One
structured log line per question (:mod:`bot.questionlog`), also handed to ``watch`` (the
metrics) when the question is done. The platform's side is
:class:`bot.ports.AskerThread`; this module knows no platform.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace

from bot import texts
from bot.conversation import Conversation, Conversations
from bot.courtesy import courtesy, courtesy_reply
from bot.ports import Answered, Answerer, AskerThread, Origin, Reply, ReviewHooks, Unreachable
from bot.questionlog import QuestionLog, QuestionWatch
from rag import (
    MAX_QUESTION_CHARS,
    Answer,
    GenerationError,
    Language,
    Refusal,
    Rewriter,
    detect_language,
    model_failure_text,
    refusal_text,
)

logger = logging.getLogger(__name__)

ONE_TO_ONE = frozenset({"im", "console"})
"""Where only the asker reads the bot: thanks there get "you're welcome", not silence."""

MAX_CONCURRENT_ANSWERS = 8
"""Questions answered at once per process; the rest wait (their placeholder already shown).
Answering is mostly CPU on this event loop, so more at once only makes Slack's acks wait:
with a burst of 200 mentions and no limit, acks queued behind answer work for over a second."""

MAX_PLACEHOLDER_POSTS = 16
"""Progress notes in flight at once per process. In a burst every listener starts at once and
its placeholder post competes with Slack's acks for the event loop: with no bound, a burst of 200
mentions (``python -m bench.load --scenario burst``) acked at p99 324–339 ms; with 16, 200–223 ms,
placeholders still shown within 0.4 s (p99); with 8 the placeholders queued towards a second."""


def cut(text: str, limit: int = MAX_QUESTION_CHARS) -> tuple[str, bool]:
    """``text`` stripped and cut to ``limit`` characters, and whether anything was cut."""
    if limit < 1:
        msg = f"limit ({limit}) must be at least 1"
        raise ValueError(msg)
    text = text.strip()
    if len(text) <= limit:
        return text, False
    return text[:limit].rstrip(), True


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


class Answering:
    def __init__(
        self,
        answerer: Answerer,
        *,
        review: ReviewHooks | None = None,
        conversations: Conversations | None = None,
        rewriter: Rewriter | None = None,
        log_questions: bool = False,
        max_question_chars: int = MAX_QUESTION_CHARS,
        max_concurrent: int = MAX_CONCURRENT_ANSWERS,
        max_placeholder_posts: int = MAX_PLACEHOLDER_POSTS,
        watch: QuestionWatch | None = None,
    ) -> None:
        if max_concurrent < 1:
            msg = f"max_concurrent ({max_concurrent}) must be at least 1"
            raise ValueError(msg)
        if max_placeholder_posts < 1:
            msg = f"max_placeholder_posts ({max_placeholder_posts}) must be at least 1"
            raise ValueError(msg)
        self.answerer = answerer
        self.review = review
        self.conversations = conversations
        self.rewriter = rewriter or Rewriter()
        self.log_questions = log_questions
        self.max_question_chars = max_question_chars
        self.watch = watch
        self._slots = asyncio.Semaphore(max_concurrent)
        self._placeholders = asyncio.Semaphore(max_placeholder_posts)

    async def answer(
        self,
        event_id: str,
        origin: Origin,
        thread: AskerThread,
        conversation: Conversation | None = None,
    ) -> None:
        """Answer ``origin.question`` (already free of platform markup) in ``thread``; in
        ``conversation`` it is read as a follow-up of the earlier questions there."""
        started = time.perf_counter()
        question, was_cut = cut(origin.question, self.max_question_chars)
        log = QuestionLog(event_id, origin.channel_type, question, self.log_questions, was_cut)
        language = detect_language(question)
        notice = texts.QUESTION_CUT[language].format(limit=self.max_question_chars)
        working = False
        try:
            if not question:
                log.verdict = "help"
                log.messages = await thread.reply(Reply(language, text=texts.HELP))
                return
            history = await self._history(conversation)
            kind = courtesy(question)
            if kind is not None:
                log.verdict = "small_talk" if history else kind
                if not history or (kind != "ok" and origin.channel_type in ONE_TO_ONE):
                    text = courtesy_reply(kind, language)
                    log.messages = await thread.reply(Reply(language, text=text))
                return  # in a shared thread, "thanks" closes an exchange: nothing to answer
            log.stage = "placeholder"
            async with self._placeholders:
                await thread.working(language)
            working = True
            log.timings_ms["placeholder"] = _ms(started)
            origin = await self._standalone(origin, question, history, conversation, log)
            queued = time.perf_counter()
            async with self._slots:
                log.timings_ms["queued"] = _ms(queued)
                reply = await self._reply(origin, language, log, thread)
            step = time.perf_counter()
            log.stage = "deliver"
            log.messages = await thread.reply(replace(reply, notice=notice if was_cut else ""))
            log.timings_ms["deliver"] = _ms(step)
        except Unreachable as error:
            log.error = str(error)
            logger.exception(
                "could not reply in %s (event %s): %s", origin.channel, event_id, error
            )
        except Exception:
            # The one place an unexpected failure becomes the one human sentence.
            log.error = log.stage
            logger.exception("answering event %s failed (%s)", event_id, log.stage)
            if working:
                await thread.failed(language)
        finally:
            log.timings_ms["total"] = _ms(started)
            log.emit()
            if self.watch is not None:
                self.watch.finished(log)

    async def _history(self, conversation: Conversation | None) -> tuple[str, ...]:
        if conversation is None or self.conversations is None:
            return ()
        return await self.conversations.turns(conversation)

    async def _standalone(
        self,
        origin: Origin,
        question: str,
        history: tuple[str, ...],
        conversation: Conversation | None,
        log: QuestionLog,
    ) -> Origin:
        """``origin`` with the question that goes to retrieval, the cache key and review."""
        log.stage = "rewrite"
        step = time.perf_counter()
        standalone = await self.rewriter.standalone(question, history) if history else question
        log.timings_ms["rewrite"] = _ms(step)
        log.fields["follow_up"] = bool(history)
        log.fields["rewritten"] = standalone != question
        if conversation is not None and self.conversations is not None:
            await self.conversations.add(conversation, standalone)
        return replace(
            origin,
            question=standalone,
            asked=question if standalone != question else "",
            conversation=history,
        )

    async def _reply(
        self, origin: Origin, language: Language, log: QuestionLog, thread: AskerThread
    ) -> Reply:
        step = time.perf_counter()
        log.stage = "pipeline"
        try:
            result = await self.answerer.answer(
                origin.question,
                scope=origin.scope,
                progress=lambda stage: thread.reached(stage, language),
                language=language,
            )
        except GenerationError as error:
            log.error = f"generation:{error.reason}"
            logger.warning("chat model failed for event %s: %s", log.event_id, error)
            return Reply(language, text=model_failure_text(language))
        finally:
            log.timings_ms["answer"] = _ms(step)
        log.record(result)
        if isinstance(result, Answer):
            version = self.answerer.index.version
            return Reply(
                language, result=result, answered=Answered(origin.user, origin.scope, version)
            )
        if isinstance(result, Refusal):
            offer = self.review.ask_human_ticket(result, origin) if self.review else None
            return Reply(language, result=result, ask_human=offer)
        if self.review is None:
            # Nobody would follow up, so promising a review would be a lie: refuse instead.
            log.reason = "unverified_without_review"
            return Reply(language, text=refusal_text(language))
        step = time.perf_counter()
        log.stage = "review_submit"
        try:
            await self.review.submit_unverified(result, origin)
        finally:
            log.timings_ms["review"] = _ms(step)
        return Reply(language, text=texts.UNVERIFIED[language], in_review=True)
