"""What was asked earlier in a conversation, so a follow-up can be read in its context
(platform-neutral; Slack and Feishu name their conversations the same way).

A conversation is a thread (channel + the thread's root) or, in a DM, the top level within a
window (:data:`DM_WINDOW_SECONDS` after the last question: a DM that continues a recent exchange
is read in its context, one the next morning is not). Its memory is the list of earlier
*standalone* questions, oldest first, and that list being there means the bot answered in that
conversation (a thread follow-up without a mention is answered only then).

Kept in Redis when it is set, so every process sees the same conversations (a list per
conversation: RPUSH, LTRIM to the last :data:`MAX_TURNS`, EXPIRE, in one transaction), and in
this process's memory always (``cachetools.TTLCache``, bounded): while Redis is away the memory
answers, and a follow-up is still read in context when it reaches the same process.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from cachetools import TTLCache

from rag import GuardedRedis, RedisUnavailable

logger = logging.getLogger(__name__)

THREAD_TTL_SECONDS = 7 * 24 * 3600
"""A thread is followed up for a week after its last question; older threads are history."""
DM_WINDOW_SECONDS = 600
"""A top-level DM within 10 minutes of the previous question continues that exchange."""
MAX_TURNS = 8
"""Earlier questions kept per conversation: follow-ups lean on the last one or two."""
MAX_LOCAL_CONVERSATIONS = 10_000
KEYS = "conversation:"
"""Conversations' part of the deployment's keys, after REDIS_KEY_PREFIX."""


@dataclass(frozen=True, slots=True)
class Conversation:
    """One conversation's name and how long its memory lasts after the last question."""

    key: str
    ttl_seconds: int

    @classmethod
    def thread(cls, channel: str, thread_ts: str) -> Conversation:
        return cls(f"{channel}:{thread_ts}", THREAD_TTL_SECONDS)

    @classmethod
    def recent(cls, channel: str, window_seconds: int = DM_WINDOW_SECONDS) -> Conversation:
        """The top level of a DM: one conversation while questions keep coming."""
        return cls(f"{channel}:top", window_seconds)


@dataclass(frozen=True, slots=True)
class FollowUpSwitch:
    """Whether thread follow-ups without a mention are answered in a channel: FOLLOW_UPS for
    every place, overridden per channel by SCOPES_FILE's optional ``[follow_ups]`` table."""

    default: bool = True
    overrides: Mapping[str, bool] = field(default_factory=dict)

    def on(self, channel: str) -> bool:
        return self.overrides.get(channel, self.default)


class Conversations:
    def __init__(
        self,
        redis: GuardedRedis | None,
        *,
        prefix: str | None = None,
        max_turns: int = MAX_TURNS,
        max_local: int = MAX_LOCAL_CONVERSATIONS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_turns < 1 or max_local < 1:
            msg = f"max_turns ({max_turns}) and max_local ({max_local}) must be at least 1"
            raise ValueError(msg)
        self.redis = redis
        base = "" if redis is None else redis.key_prefix
        self.prefix = f"{base}{KEYS}" if prefix is None else prefix
        """Of every key; by default the client's key prefix + :data:`KEYS`."""
        self.max_turns = max_turns
        self._max_local = max_local
        self._clock = clock
        self._local: dict[int, TTLCache[str, tuple[str, ...]]] = {}
        """One bounded cache per lifetime (threads, DM windows)."""

    async def turns(self, conversation: Conversation) -> tuple[str, ...]:
        """The earlier standalone questions, oldest first; empty: the bot hasn't answered there
        (or the conversation has gone quiet for longer than its lifetime)."""
        redis = self.redis
        if redis is not None:
            name = self.prefix + conversation.key
            try:
                raw = await redis.run(lambda: redis.client.lrange(name, 0, -1))
            except RedisUnavailable:
                logger.debug("conversations: Redis unavailable; reading %s here", name)
            else:
                return tuple(_text(item) for item in raw)
        return self._cache(conversation).get(conversation.key, ())

    async def answered(self, conversation: Conversation) -> bool:
        """Whether the bot has answered in ``conversation`` (and it is still remembered)."""
        return bool(await self.turns(conversation))

    async def add(self, conversation: Conversation, question: str) -> None:
        """Remember ``question`` (standalone) as the conversation's latest turn."""
        cache = self._cache(conversation)
        turns = (*cache.get(conversation.key, ()), question)[-self.max_turns :]
        cache[conversation.key] = turns
        redis = self.redis
        if redis is None:
            return
        name, ttl = self.prefix + conversation.key, conversation.ttl_seconds

        async def push() -> None:
            async with redis.client.pipeline(transaction=True) as pipe:
                pipe.rpush(name, question)
                pipe.ltrim(name, -self.max_turns, -1)
                pipe.expire(name, ttl)
                await pipe.execute()

        try:
            await redis.run(push)
        except RedisUnavailable:
            logger.debug("conversations: Redis unavailable; %s kept in this process", name)

    def _cache(self, conversation: Conversation) -> TTLCache[str, tuple[str, ...]]:
        ttl = conversation.ttl_seconds
        if ttl not in self._local:
            self._local[ttl] = TTLCache(maxsize=self._max_local, ttl=ttl, timer=self._clock)
        return self._local[ttl]


def _text(item: bytes | str) -> str:
    return item.decode() if isinstance(item, bytes) else item
