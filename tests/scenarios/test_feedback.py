"""Feedback over signed HTTP: the 👍 / 👎 under every answer, acknowledged and recorded once
per person (a second click changes the vote), an optional "what was wrong" after a 👎, and
what two people's 👎 do — the answer is withdrawn (the next asker does not get it) and reaches
the review channel as one knowledge-gap card with the votes."""

from __future__ import annotations

import json
import logging

import pytest

from bot.slack.review_replies import VOTES_SEEN
from bot.texts import CACHED, FEEDBACK_THANKS, UNVERIFIED
from rag.messages import WITHDRAWN
from rag.search.index import Index
from tests.fakes.slack_api import FakeSlackApi, Message
from tests.redis_area import RedisArea
from tests.scenarios.feedback_harness import (
    BOB,
    CAROL,
    DAVE,
    ask,
    feedback_button,
    shown,
    tell_what_was_wrong,
    vote,
)
from tests.scenarios.harness import (
    ALICE,
    CHANNEL,
    REVIEW_CHANNEL,
    RunningBot,
    bot_env,
    button_click,
    compose,
    hashing_pipeline,
)

FEE = "流利级的课程费是多少？"
NOTE = "费用写错了，应该问的是商务级。"
REVIEWER = "U0REVIEWER"


async def _stored(area: RedisArea, answer: str) -> dict[str, dict[str, object]]:
    """The votes on ``answer`` where the bot keeps them: under its REDIS_KEY_PREFIX."""
    redis = area.client()
    try:
        raw = await redis.hgetall(f"{area.prefix}votes:answer:{answer}")
    finally:
        await redis.aclose()
    return {user.decode(): json.loads(value) for user, value in raw.items()}


async def test_a_feedback_click_is_acknowledged_and_recorded_once_per_person(
    slack_api: FakeSlackApi,
    e5_env: dict[str, str],
    redis_area: RedisArea,
    caplog: pytest.LogCaptureFixture,
) -> None:
    env = bot_env(slack_api, **redis_area.env, RECORD_QUESTIONS="false", **e5_env)
    async with compose(env) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        answer = await ask(bot, slack_api, FEE)
        with caplog.at_level(logging.INFO, logger="citebot.feedback"):
            for user, verdict in ((ALICE, "up"), (BOB, "down"), (ALICE, "down")):
                await vote(bot, slack_api, answer, verdict, user=user)
    assert [(e.user, e.text) for e in slack_api.ephemerals] == [
        (ALICE, FEEDBACK_THANKS["up"]["zh"]),
        (BOB, FEEDBACK_THANKS["down"]["zh"]),
        (ALICE, FEEDBACK_THANKS["down"]["zh"]),
    ]
    stored = await _stored(redis_area, f"{CHANNEL}:{answer.ts}")
    assert {user: record["verdict"] for user, record in stored.items()} == {
        ALICE: "down",
        BOB: "down",
    }
    record = stored[BOB]
    assert str(record["sources"][0]).startswith("courses.md")
    assert record["index_version"]
    assert record["hash"]
    assert record["text"] is None  # RECORD_QUESTIONS=false: the question's key only
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "citebot.feedback"]
    votes = [line for line in lines if line["event"] == "feedback"]
    assert [(line["verdict"], line["up"], line["down"]) for line in votes] == [
        ("up", 1, 0),
        ("down", 1, 1),
        ("down", 0, 2),
    ]
    assert "question" not in votes[0]  # only its hash, unless LOG_QUESTIONS is set


async def test_one_person_clicking_down_twice_counts_once_and_withdraws_nothing(
    slack_api: FakeSlackApi, e5_env: dict[str, str], redis_area: RedisArea
) -> None:
    env = bot_env(slack_api, **redis_area.env, **e5_env)
    async with compose(env) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        answer = await ask(bot, slack_api, FEE)
        await vote(bot, slack_api, answer, "down", user=BOB)
        await vote(bot, slack_api, answer, "down", user=BOB)
        again = await ask(bot, slack_api, FEE)
    assert not slack_api.in_channel(REVIEW_CHANNEL)
    assert CACHED["zh"].split(" ·")[0] in shown(again)  # still served from the cache
    stored = await _stored(redis_area, f"{CHANNEL}:{answer.ts}")
    assert list(stored) == [BOB]
    assert stored[BOB]["text"] == FEE  # RECORD_QUESTIONS defaults to on


async def test_two_people_s_down_votes_withdraw_a_cached_answer_and_post_one_gap_card(
    slack_api: FakeSlackApi, e5_env: dict[str, str], redis_area: RedisArea
) -> None:
    env = bot_env(slack_api, **redis_area.env, **e5_env)
    async with compose(env) as first, compose(env) as second:
        one = RunningBot(first.url, first.http, first.handled)
        two = RunningBot(second.url, second.http, second.handled)
        await ask(one, slack_api, FEE)
        cached = await ask(one, slack_api, FEE)
        assert CACHED["zh"].split(" ·")[0] in shown(cached)
        await vote(one, slack_api, cached, "down", user=BOB)
        [bobs_thanks] = [e for e in slack_api.ephemerals if e.user == BOB]
        await tell_what_was_wrong(one, slack_api, bobs_thanks, NOTE)
        # The second person's 👎 reaches two processes at once: one card all the same.
        await vote(one, slack_api, cached, "down", user=CAROL)
        await vote(two, slack_api, cached, "down", user=CAROL)
        third = await ask(two, slack_api, FEE)

    [card] = slack_api.in_channel(REVIEW_CHANNEL)[:1]
    gap_cards = [m for m in slack_api.in_channel(REVIEW_CHANNEL) if f"<@{CAROL}>" in shown(m)]
    assert gap_cards == [card]
    everything = shown(card)
    assert FEE in everything
    assert "4800" in everything, "the answer that was voted down"
    assert "courses.md" in everything, "its sources"
    assert f"<@{BOB}>" in everything
    assert f"<@{CAROL}>" in everything
    assert NOTE in everything, "what Bob said was wrong"
    actions = {e["action_id"] for b in card.blocks if b["type"] == "actions" for e in b["elements"]}
    assert actions == {"gap_answer", "gap_dismiss"}
    # The next asker is not given the withdrawn answer: it goes to a reviewer first.
    assert CACHED["zh"].split(" ·")[0] not in shown(third)
    assert third.text == UNVERIFIED["zh"]
    [review] = [m for m in slack_api.in_channel(REVIEW_CHANNEL) if m is not card]
    assert WITHDRAWN["zh"] in shown(review)


async def test_a_note_after_the_card_is_shown_on_it(
    slack_api: FakeSlackApi, e5_env: dict[str, str], redis_area: RedisArea
) -> None:
    env = bot_env(slack_api, **redis_area.env, **e5_env)
    async with compose(env) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        answer = await ask(bot, slack_api, FEE)
        await vote(bot, slack_api, answer, "down", user=BOB)
        await vote(bot, slack_api, answer, "down", user=DAVE)
        [card] = slack_api.in_channel(REVIEW_CHANNEL)
        assert NOTE not in shown(card)
        [daves_thanks] = [e for e in slack_api.ephemerals if e.user == DAVE]
        await tell_what_was_wrong(bot, slack_api, daves_thanks, NOTE)
    [card] = slack_api.in_channel(REVIEW_CHANNEL)
    assert card.edits == 1
    assert NOTE in shown(card)
    stored = await _stored(redis_area, f"{CHANNEL}:{answer.ts}")
    assert stored[DAVE]["note"] == NOTE
    assert stored[BOB]["note"] == ""


async def test_without_redis_two_down_votes_withdraw_a_fresh_answer_too(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    pipeline = hashing_pipeline(docs_index)
    env = bot_env(slack_api, REVIEWERS=REVIEWER)
    async with compose(env, pipeline=pipeline) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        fresh = await ask(bot, slack_api, FEE)
        assert CACHED["zh"].split(" ·")[0] not in shown(fresh)
        await vote(bot, slack_api, fresh, "down", user=BOB)
        await vote(bot, slack_api, fresh, "down", user=DAVE)
        await vote(bot, slack_api, fresh, "down", user=CAROL)  # a third: no second card
        later = await ask(bot, slack_api, FEE)
        cards = [m for m in slack_api.in_channel(REVIEW_CHANNEL) if f"<@{DAVE}>" in shown(m)]
        assert len(cards) == 1
        assert later.text == UNVERIFIED["zh"], "not the withdrawn answer from the cache"
        # A reviewer dismisses the card: the voted answer's thread hears the feedback was seen.
        dismiss = _card_button(cards[0], "gap_dismiss")
        click = button_click(
            slack_api, channel=REVIEW_CHANNEL, message_ts=cards[0].ts, button=dismiss, user=REVIEWER
        )
        assert (await bot.click(click)).status == 200
        await bot.idle()
    thread = slack_api.thread(CHANNEL, fresh.thread_ts or fresh.ts)
    assert thread[-1].text == VOTES_SEEN["zh"]


LONG_QUESTION_SECONDS = 30.0
"""How long a fresh answer to a 2,000-character question may take here: e5 embeds it in four
512-token windows, ~2.5 s on a quiet machine and over 5 s on a busy CI runner."""


def _card_button(card: Message, action_id: str) -> dict[str, object]:
    [button] = [
        element
        for block in card.blocks
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"] == action_id
    ]
    return {"type": "button", **button}


async def test_two_down_votes_withdraw_the_answer_to_a_question_too_long_for_a_button(
    slack_api: FakeSlackApi, e5_env: dict[str, str], redis_area: RedisArea
) -> None:
    """The buttons carry such a question shortened; its digest finds the cached answer."""
    long_question = FEE * 200
    env = bot_env(slack_api, **redis_area.env, **e5_env)
    async with compose(env) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        await ask(bot, slack_api, long_question, within=LONG_QUESTION_SECONDS)
        cached = await ask(bot, slack_api, long_question)
        assert CACHED["zh"].split(" ·")[0] in shown(cached)
        value = feedback_button(cached, "down")["value"]
        assert json.loads(value)["q"] != long_question, "shortened to fit the button"
        await vote(bot, slack_api, cached, "down", user=BOB)
        await vote(bot, slack_api, cached, "down", user=CAROL)
        third = await ask(bot, slack_api, long_question, within=LONG_QUESTION_SECONDS)
    assert CACHED["zh"].split(" ·")[0] not in shown(third)
    assert third.text == UNVERIFIED["zh"]
