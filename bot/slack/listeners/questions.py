"""Listeners for questions: ``app_mention`` and ``message`` events (thin: parse, dedupe, hand on).

Bolt acknowledges events before these run (``process_before_response=False``), so Slack gets
its 200 at once, retries included. A retry or twin event (same ``event_id``, or same channel
and ``ts``) finds its keys claimed and stops here: it is acknowledged, not answered again.
The question, free of Slack's markup, goes to the platform-neutral :mod:`bot.answering` with
the asker's thread in Slack (:class:`bot.slack.thread.SlackThread`), the audience's scope
(:mod:`bot.audience`: the channel's in a channel, the asker's in a DM) and its conversation (the
thread, or a DM's recent top level), so a follow-up is read in context. Where SCOPES_FILE
enables no scope, nothing is searched: the asker alone gets one short note (an ephemeral
message in a channel) saying so, and where they can ask instead. A thread message without a
mention is taken only as a follow-up: where the bot has answered in that thread and follow-ups
are on for the channel (FOLLOW_UPS, ``[follow_ups]``); anything else is left to the people in
the thread.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_sdk.web.async_client import AsyncWebClient

from bot import texts
from bot.answering import Answering
from bot.audience import Audiences
from bot.conversation import Conversations, FollowUpSwitch
from bot.dedupe import Dedupe, event_key, message_key
from bot.ports import Origin
from bot.slack.errors import SEND_ERRORS
from bot.slack.incoming import Incoming, incoming
from bot.slack.mrkdwn import clean_question
from bot.slack.reply import plain_message
from bot.slack.thread import SlackThread
from rag import detect_language

logger = logging.getLogger(__name__)


def origin(asked: Incoming, scope: str) -> Origin:
    return Origin(
        channel=asked.channel,
        thread_ts=asked.follow_up_thread,
        message_ts=asked.ts,
        user=asked.user,
        channel_type=asked.channel_type,
        question=clean_question(asked.text),
        scope=scope,
    )


async def answer_in_slack(
    answering: Answering, client: AsyncWebClient, asked: Incoming, scope: str
) -> None:
    thread = SlackThread(client, asked)
    await answering.answer(asked.event_id, origin(asked, scope), thread, asked.conversation)


async def continues(
    asked: Incoming, conversations: Conversations | None, switch: FollowUpSwitch
) -> bool:
    """Whether a thread message without a mention is a follow-up the bot should answer."""
    if conversations is None or not switch.on(asked.channel):
        return False
    return await conversations.answered(asked.conversation)


async def not_enabled(client: AsyncWebClient, asked: Incoming, audiences: Audiences) -> None:
    """The short note where no scope is enabled, to the asker only; nothing is searched."""
    language = detect_language(clean_question(asked.text))
    is_dm = asked.channel_type == "im"
    dms = not is_dm and await audiences.direct(asked.user) is not None
    text = (texts.NOT_ENABLED_HERE if dms else texts.NOT_ENABLED)[language]
    logger.info("not enabled in %s for %s (event %s)", asked.channel, asked.user, asked.event_id)
    message = plain_message(text)
    try:
        if is_dm:  # only the asker reads a DM
            await client.chat_postMessage(
                channel=asked.channel,
                text=message.text,
                blocks=message.blocks,
                thread_ts=asked.reply_thread,
            )
        else:
            await client.chat_postEphemeral(
                channel=asked.channel,
                user=asked.user,
                text=message.text,
                blocks=message.blocks,
                thread_ts=asked.reply_thread,
            )
    except SEND_ERRORS:
        logger.exception("could not tell %s that %s is not enabled", asked.user, asked.channel)


def register(
    app: AsyncApp,
    *,
    answering: Answering,
    dedupe: Dedupe,
    audiences: Audiences | None = None,
    follow_ups: FollowUpSwitch | None = None,
) -> None:
    audiences = audiences or Audiences(None)
    switch = follow_ups or FollowUpSwitch()

    async def on_event(
        body: dict[str, Any],
        event: dict[str, Any],
        context: AsyncBoltContext,
        client: AsyncWebClient,
    ) -> None:
        asked = incoming(body, event, bot_user_id=context.bot_user_id)
        if asked is None:
            return
        if asked.follow_up and not await continues(asked, answering.conversations, switch):
            return
        keys = (event_key(asked.event_id), message_key(asked.channel, asked.ts))
        if not await dedupe.claim(*keys):
            logger.info("duplicate delivery of %s (event %s) ignored", keys[1], asked.event_id)
            return
        scope = await audiences.place(
            channel=asked.channel, user=asked.user, is_dm=asked.channel_type == "im"
        )
        if scope is None:
            await not_enabled(client, asked, audiences)
            return
        await answer_in_slack(answering, client, asked, scope.key)

    # "message" without a subtype filter: edits, joins and bot posts are acknowledged and
    # ignored here, rather than answered with 404 (which Slack retries).
    app.event("app_mention")(on_event)
    app.event("message")(on_event)
