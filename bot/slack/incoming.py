"""Which Slack events are questions for the bot, and where the reply goes (pure, no I/O).

Questions: an ``app_mention`` in a channel; every ``message`` in a DM (``channel_type: im``);
and, as a safety net for workspaces that subscribe to channel messages instead of mentions, a
channel ``message`` that mentions the bot (dedupe makes the usual ``app_mention`` + ``message``
twin one question). Candidate *follow-ups*: any other person's ``message`` in a channel
thread (``message.channels`` / ``message.groups``) that addresses nobody else (no ``<@U…>`` of
another person, no ``<!here>``); the listener answers one only where the bot has answered in
that thread and follow-ups are on there. Not questions (slack-facts §5): anything with
``bot_id`` (other bots and our own echoes), any ``subtype`` (edits, deletions, joins,
``bot_message``, …), ``hidden`` events, events without a human ``user``, and the bot itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.conversation import Conversation

SLACKBOT = "USLACKBOT"
_ADDRESSED = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>|<!(?:here|channel|everyone)\b")
"""Someone addressed in Slack's markup: a person's mention, or a broadcast."""


@dataclass(frozen=True, slots=True)
class Incoming:
    event_id: str
    channel: str
    ts: str
    user: str
    channel_type: str
    """``im`` for a DM, else Slack's channel type (``channel``, ``group``, ``mpim``)."""
    text: str
    reply_thread: str | None
    """Thread to answer in; ``None`` answers a top-level DM at top level."""
    follow_up: bool = False
    """A thread message without a mention: answered only where the bot answered before."""

    @property
    def follow_up_thread(self) -> str:
        """Where later replies (a reviewer's) go: the reply thread, else under the question."""
        return self.reply_thread or self.ts

    @property
    def conversation(self) -> Conversation:
        """The thread, or a DM's top level (recent questions there)."""
        if self.reply_thread is None:
            return Conversation.recent(self.channel)
        return Conversation.thread(self.channel, self.reply_thread)


def _from_a_person(event: dict[str, Any], bot_user_id: str | None) -> bool:
    user = event.get("user")
    return not (
        event.get("bot_id")
        or event.get("subtype")
        or event.get("hidden")
        or not isinstance(user, str)
        or not user
        or user in {bot_user_id, SLACKBOT}
    )


def incoming(
    body: dict[str, Any], event: dict[str, Any], *, bot_user_id: str | None
) -> Incoming | None:
    """The question in ``event``, or ``None`` when the bot must stay silent."""
    if not _from_a_person(event, bot_user_id):
        return None
    channel, ts = event.get("channel"), event.get("ts")
    if not isinstance(channel, str) or not isinstance(ts, str):
        return None
    thread_ts = event.get("thread_ts") if isinstance(event.get("thread_ts"), str) else None
    text = event.get("text") if isinstance(event.get("text"), str) else ""
    kind = event.get("type")
    follow_up = False
    channel_type = str(event.get("channel_type") or "")
    if kind == "app_mention":
        channel_type = channel_type or ("group" if channel.startswith("G") else "channel")
        reply_thread: str | None = thread_ts or ts
    elif kind == "message" and channel_type == "im":
        reply_thread = thread_ts
    elif kind == "message" and bot_user_id and f"<@{bot_user_id}" in str(text):
        reply_thread = thread_ts or ts
    elif kind == "message" and thread_ts and not _addresses_someone(str(text)):
        reply_thread, follow_up = thread_ts, True
    else:
        return None
    return Incoming(
        event_id=str(body.get("event_id") or f"{channel}:{ts}"),
        channel=channel,
        ts=ts,
        user=str(event["user"]),
        channel_type=channel_type or "channel",
        text=str(text),
        reply_thread=reply_thread,
        follow_up=follow_up,
    )


def _addresses_someone(text: str) -> bool:
    """A person answering another person (or everyone) in the thread, not the bot."""
    return _ADDRESSED.search(text) is not None
