"""Conversation memory: bounded, expiring, shared through Redis, kept in-process without it."""

from __future__ import annotations

from redis.asyncio import Redis

from bot.conversation import Conversation, Conversations, FollowUpSwitch
from rag import GuardedRedis
from tests.fakes.clock import FakeClock
from tests.redis_area import RedisArea

THREAD = Conversation.thread("C1", "1.0001")
DM = Conversation.recent("D1", window_seconds=600)


async def test_turns_are_kept_oldest_first_and_bounded() -> None:
    memory = Conversations(None, max_turns=2)
    assert not await memory.answered(THREAD)
    for question in ("q1", "q2", "q3"):
        await memory.add(THREAD, question)
    assert await memory.turns(THREAD) == ("q2", "q3")
    assert await memory.turns(Conversation.thread("C1", "other")) == ()


async def test_a_dm_top_level_is_one_conversation_only_within_its_window() -> None:
    clock = FakeClock()
    memory = Conversations(None, clock=clock)
    await memory.add(DM, "流利级的课程费是多少？")
    clock.now += 599
    assert await memory.turns(DM) == ("流利级的课程费是多少？",)
    await memory.add(DM, "商务级的课程费是多少？")  # a new question restarts the window
    clock.now += 601
    assert await memory.turns(DM) == ()


async def test_processes_share_conversations_through_redis(redis_area: RedisArea) -> None:
    one, other = redis_area.guarded(), redis_area.guarded()
    try:
        await Conversations(one, max_turns=2).add(THREAD, "q1")
        await Conversations(one, max_turns=2).add(THREAD, "q2")
        await Conversations(one, max_turns=2).add(THREAD, "q3")
        assert await Conversations(other).turns(THREAD) == ("q2", "q3")
        key = f"{redis_area.prefix}conversation:{THREAD.key}"  # under REDIS_KEY_PREFIX
        assert 0 < await one.client.ttl(key) <= THREAD.ttl_seconds
    finally:
        await one.aclose()
        await other.aclose()


async def test_without_redis_the_process_remembers() -> None:
    down = GuardedRedis(Redis(host="127.0.0.1", port=1, socket_connect_timeout=0.05))
    memory = Conversations(down)
    await memory.add(THREAD, "q1")
    assert await memory.turns(THREAD) == ("q1",)
    await down.aclose()


def test_follow_ups_switch_per_channel_overrides_the_default() -> None:
    switch = FollowUpSwitch(True, {"C0QUIET": False})
    assert switch.on("C0ANY")
    assert not switch.on("C0QUIET")
    assert FollowUpSwitch(False, {"C0LOUD": True}).on("C0LOUD")
