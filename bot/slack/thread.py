"""The asker's thread in Slack (:class:`bot.ports.AskerThread`): progress, then the reply.

    working()  -> in a thread: assistant.threads.setStatus "正在查找资料…"; where Slack refuses
                  it (old workspace, missing scope, rate limit, a top-level DM)
                  chat.postMessage "Looking it up…" instead, left as it is until the reply
    reached()  -> the status of the stage the answer entered ("正在起草回答…", "正在核对出处…"):
                  at most one call per stage, sent in the background and never ahead of the
                  reply (a stage still waiting when the reply is ready is dropped)
    reply()    -> Reply rendered to Block Kit (bot/slack/reply.py); chat.update of the
                  placeholder with the first message (or a new post when there is none),
                  chat.postMessage for any continuation; then the status is cleared
    failed()   -> the one human sentence in the placeholder's place (best effort)
A Slack API error becomes :class:`bot.ports.Unreachable` (``slack:<error>``), logged by the
answering core. A placeholder Slack will not edit is replaced by a new post (and removed).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot import texts
from bot.ports import Reply, Unreachable
from bot.slack.errors import SEND_ERRORS
from bot.slack.incoming import Incoming
from bot.slack.reply import SlackMessage, context, plain_message, render_answer, render_refusal
from bot.slack.review_cards import ask_human_button
from rag import Answer, Language, Stage, model_failure_text

logger = logging.getLogger(__name__)


def _without_retries(client: AsyncWebClient) -> AsyncWebClient:
    """``client`` for a call whose failure has a fallback: a 429 on a status must not park the
    answer behind Retry-After (the shared client waits it out), the placeholder is shown."""
    if not isinstance(client, AsyncWebClient):  # a test's stand-in
        return client  # type: ignore[unreachable]
    return AsyncWebClient(
        token=client.token,
        base_url=client.base_url,
        session=client.session,
        timeout=client.timeout,
        retry_handlers=[],
    )


def render(reply: Reply) -> list[SlackMessage]:
    """A neutral reply as Slack messages; the notice (if any) heads the first one."""
    if isinstance(reply.result, Answer):
        messages = render_answer(reply.result, reply.language, reply.answered)
    elif reply.result is not None:
        extra = []
        if reply.ask_human is not None:
            extra.append(ask_human_button(reply.ask_human, question=reply.ask_human.question))
        messages = render_refusal(reply.result, extra, language=reply.language)
    else:
        messages = [plain_message(reply.text)]
    if reply.notice:
        first = messages[0]
        messages[0] = SlackMessage(first.text, [context(reply.notice), *first.blocks])
    return messages


class SlackThread:
    def __init__(self, client: AsyncWebClient, asked: Incoming) -> None:
        self.client = client
        self.asked = asked
        self.placeholder = ""
        self.status = False
        """Whether the thread shows our status (cleared once the reply is there)."""
        self._stages: set[Stage] = set()
        self._next = ""
        """The status waiting to be sent (only the latest: a newer stage supersedes it)."""
        self._sender: asyncio.Task[None] | None = None

    async def working(self, language: Language) -> None:
        self._stages.add("retrieving")
        if await self._set_status(texts.STATUS[language]["retrieving"]):
            self.status = True
            return
        self.placeholder = await self._post(plain_message(texts.WORKING[language]))

    def reached(self, stage: Stage, language: Language) -> None:
        if not self.status or stage in self._stages:
            return  # a placeholder stays as it is; each stage is shown once
        self._stages.add(stage)
        self._next = texts.STATUS[language][stage]
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send_stages())

    async def _send_stages(self) -> None:
        while self._next and self.status:
            status, self._next = self._next, ""
            if not await self._set_status(status):
                return  # Slack stopped taking statuses: the last one stays until the reply

    async def _settle(self) -> None:
        """Before the reply: drop a stage not yet sent, wait for the one being sent (a status
        landing after the reply would hang over it)."""
        self._next = ""
        if self._sender is not None:
            await self._sender

    async def reply(self, reply: Reply) -> int:
        messages = render(reply)
        await self._settle()
        try:
            await self._deliver(messages)
        finally:
            await self._clear_status()
        return len(messages)

    async def failed(self, language: Language) -> None:
        failure = plain_message(model_failure_text(language))
        try:
            await self._settle()
            if self.placeholder:
                await self.client.chat_update(
                    channel=self.asked.channel,
                    ts=self.placeholder,
                    text=failure.text,
                    blocks=failure.blocks,
                )
            else:
                await self._post(failure)
        except (*SEND_ERRORS, Unreachable):
            logger.exception("could not tell %s that answering failed", self.asked.channel)
        await self._clear_status()

    async def _set_status(self, status: str) -> bool:
        """Show ``status`` in the thread; ``False`` when Slack won't (then a placeholder)."""
        thread = self.asked.reply_thread
        if thread is None:  # a top-level DM has no thread to show a status in
            return False
        try:
            await _without_retries(self.client).assistant_threads_setStatus(
                channel_id=self.asked.channel,
                thread_ts=thread,
                status=status,
                loading_messages=[status],
            )
        except SEND_ERRORS as error:
            code = error.response.get("error") if isinstance(error, SlackApiError) else error
            logger.info("assistant.threads.setStatus refused (%s)", code)
            return False
        return True

    async def _clear_status(self) -> None:
        """Best effort: Slack clears it on our reply too; an empty status says so at once."""
        if not self.status or self.asked.reply_thread is None:
            return
        self.status = False
        try:
            await _without_retries(self.client).assistant_threads_setStatus(
                channel_id=self.asked.channel, thread_ts=self.asked.reply_thread, status=""
            )
        except SEND_ERRORS as error:
            code = error.response.get("error") if isinstance(error, SlackApiError) else error
            logger.info("could not clear the status in %s (%s)", self.asked.channel, code)

    async def _post(self, message: SlackMessage) -> str:
        extra: dict[str, Any] = {}
        if self.asked.reply_thread:
            extra["thread_ts"] = self.asked.reply_thread
        try:
            response = await self.client.chat_postMessage(
                channel=self.asked.channel,
                text=message.text,
                blocks=message.blocks,
                unfurl_links=False,
                unfurl_media=False,
                **extra,
            )
        except SlackApiError as error:
            msg = f"slack:{error.response.get('error')}"
            raise Unreachable(msg) from error
        return str(response["ts"])

    async def _deliver(self, messages: Sequence[SlackMessage]) -> None:
        first, *rest = messages
        if not self.placeholder:
            await self._post(first)
        else:
            await self._replace_placeholder(first)
        for message in rest:
            await self._post(message)

    async def _replace_placeholder(self, first: SlackMessage) -> None:
        channel, placeholder = self.asked.channel, self.placeholder
        try:
            await self.client.chat_update(
                channel=channel, ts=placeholder, text=first.text, blocks=first.blocks
            )
        except SlackApiError as error:
            # The placeholder may have been deleted, or Slack refused the edit: post instead,
            # so the asker still gets the answer.
            code = error.response.get("error")
            logger.warning(
                "chat.update of %s in %s failed (%s); posting the reply instead",
                placeholder,
                channel,
                code,
            )
            await self._post(first)
            if code != "message_not_found":
                await self._remove_placeholder()

    async def _remove_placeholder(self) -> None:
        """Best effort: a "Looking it up…" left above the answer would read as still working."""
        try:
            await self.client.chat_delete(channel=self.asked.channel, ts=self.placeholder)
        except SlackApiError as error:
            logger.warning(
                "could not remove placeholder %s in %s (%s)",
                self.placeholder,
                self.asked.channel,
                error.response.get("error"),
            )
