"""Feishu end to end: encrypted, signed events into the real app; the fake Open API watching."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

import pytest

from rag.search.index import Index
from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.feishu_api import FakeFeishuApi
from tests.redis_area import RedisArea
from tests.scenarios.feishu_harness import (
    ALICE,
    GROUP,
    OUTSIDER,
    REVIEW_CHAT,
    REVIEWER,
    FeishuBot,
    buttons,
    start_feishu,
    value_of,
)
from tests.scenarios.harness import IN_KB, IN_KB_EN, OUT_OF_KB
from tests.scenarios.review_harness import IN_KB as LEVELS_QUESTION
from tests.scenarios.review_harness import INDEX, INVENTED, THRESHOLD


@pytest.fixture
async def bot(
    feishu: FakeFeishuApi, docs_index: Index, redis_area: RedisArea
) -> AsyncIterator[FeishuBot]:
    async with start_feishu(feishu, index=docs_index, redis=redis_area) as running:
        yield running


async def test_a_group_mention_is_answered_in_its_thread_with_citations(
    bot: FeishuBot, feishu: FakeFeishuApi
) -> None:
    question, _ = await bot.ask_group(IN_KB)
    [answer] = await bot.replies(question)
    assert answer.parent_id == question.message_id
    assert re.search(r"\[\d+\]", answer.text)
    sources = [b for b in buttons(answer) if value_of(b)["k"] == "source"]
    assert sources
    assert sources[0]["text"]["content"].startswith("[1]")
    assert all(call.body["reply_in_thread"] is True for call in feishu.calls_to("reply"))
    assert answer.edits == 1  # the progress card became the answer


async def test_a_group_message_without_the_bots_mention_is_ignored(
    bot: FeishuBot, feishu: FakeFeishuApi
) -> None:
    ignored, _ = await bot.ask_group(IN_KB, mention_bot=False)
    asked, _ = await bot.ask_p2p(IN_KB_EN)  # handled after the ignored one
    await bot.replies(asked)
    assert feishu.thread(ignored.message_id) == []
    replied_to = {call.path.split("/")[-2] for call in feishu.calls_to("reply")}
    assert replied_to == {asked.message_id}


async def test_a_p2p_message_is_answered_in_english(bot: FeishuBot) -> None:
    question, _ = await bot.ask_p2p(IN_KB_EN)
    [answer] = await bot.replies(question)
    assert re.search(r"\[\d+\]", answer.text)
    assert "Looking it up" not in answer.text


async def test_retries_and_redeliveries_get_one_reply(
    bot: FeishuBot, feishu: FakeFeishuApi
) -> None:
    question, event = await bot.ask_group(IN_KB)
    await bot.events.post(event)  # Feishu's retry: the same event_id
    await bot.events.post(bot.events.redelivered(event))  # the same message, a new event_id
    await bot.replies(question)
    later, _ = await bot.ask_p2p(IN_KB_EN)  # every delivery above is handled before this one
    await bot.replies(later)
    assert len(feishu.thread(question.message_id)) == 1
    assert [d.status for d in bot.events.deliveries[:3]] == [200, 200, 200]


@pytest.mark.parametrize("fault", ["signature", "stale", "token"])
async def test_forged_or_stale_events_are_rejected_and_nothing_is_sent(
    bot: FeishuBot, feishu: FakeFeishuApi, fault: str
) -> None:
    message = feishu.user_message(GROUP, "ou_alice000001", {"text": f"@_user_1 {IN_KB}"})
    event = bot.events.message(message, mentions=[bot.events.bot_mention()])
    if fault == "signature":
        delivery = await bot.events.post(event, tamper=lambda body: body.replace(b'"}', b'A"}'))
    elif fault == "stale":
        delivery = await bot.events.post(event, timestamp=bot.events.clock() - 301)
    else:
        event["header"]["token"] = "forged-token"
        delivery = await bot.events.post(event)
    assert delivery.status == 401
    asked, _ = await bot.ask_p2p(IN_KB_EN)
    await bot.replies(asked)
    assert feishu.thread(message.message_id) == []


async def test_the_url_check_is_answered_with_its_challenge(bot: FeishuBot) -> None:
    delivery = await bot.events.post(bot.events.url_verification("c-42"), signed=False)
    assert (delivery.status, delivery.body) == (200, {"challenge": "c-42"})


async def test_a_citation_click_shows_the_passage(bot: FeishuBot, docs_index: Index) -> None:
    question, _ = await bot.ask_group(IN_KB)
    [answer] = await bot.replies(question)
    value = value_of(next(b for b in buttons(answer) if value_of(b)["k"] == "source"))
    delivery = await bot.click(answer, value, user="ou_bob00000001")
    chunk = docs_index.chunk(value["c"])
    assert chunk is not None
    toast = delivery.body["toast"]["content"]
    assert toast.startswith("出处 [1]")
    assert chunk.text.splitlines()[0] in toast


async def test_a_rate_limit_waits_the_reset_and_the_answer_arrives(
    bot: FeishuBot, feishu: FakeFeishuApi
) -> None:
    feishu.rate_limit("reply", times=1, reset=2)
    question, _ = await bot.ask_p2p(IN_KB_EN)
    [answer] = await bot.replies(question)
    assert re.search(r"\[\d+\]", answer.text)
    assert bot.waits == [2.0]
    assert [call.status for call in feishu.calls_to("reply")] == [429, 200]


async def test_a_revoked_token_is_refreshed_and_the_answer_arrives(
    bot: FeishuBot, feishu: FakeFeishuApi
) -> None:
    feishu.revoke_tokens()
    question, _ = await bot.ask_p2p(IN_KB_EN)
    [answer] = await bot.replies(question)
    assert re.search(r"\[\d+\]", answer.text)
    assert len(feishu.calls_to("token")) == 2
    assert [c.response.get("code") for c in feishu.calls_to("reply")] == [99991663, 0]


async def test_an_unverified_answer_is_delivered_once_after_a_reviewers_approval(
    feishu: FakeFeishuApi, redis_area: RedisArea
) -> None:
    model = ScriptedChatModel(replies=[INVENTED])
    async with start_feishu(
        feishu, index=INDEX, redis=redis_area, model=model, min_score=THRESHOLD
    ) as bot:
        question, _ = await bot.ask_group(LEVELS_QUESTION)
        [note] = await bot.replies(question)
        assert "人工复核" in note.text
        await feishu.wait_until(lambda: len(feishu.in_chat(REVIEW_CHAT)) == 1)
        [card] = feishu.in_chat(REVIEW_CHAT)
        assert INVENTED in card.text
        # the sentence quoted once, each problem under it with the source it cites
        assert (
            f"「{INVENTED}」\n  • 回答说「六级」，所引资料 [1] 写的是「四个级别」；"
            "回答说「12 课时」，所引资料 [1] 写的是「16 课时」\n"
        ) in card.text
        approve = value_of(next(b for b in buttons(card) if value_of(b)["k"] == "approve"))
        form = {"text": INVENTED, "reason": ""}

        refused = await bot.click(card, approve, user=OUTSIDER, form=form)
        assert refused.body["toast"]["content"] == "只有复核人员可以操作这张卡片。"
        assert len(feishu.thread(question.message_id)) == 1

        approved = await bot.click(card, approve, user=REVIEWER, form=form)
        # The outcome as a toast when the decision took under 2 s, else only on the card.
        assert approved.body.get("toast", {"type": "success"})["type"] == "success"
        await feishu.wait_until(lambda: len(feishu.thread(question.message_id)) == 2)
        again = await bot.click(card, approve, user=REVIEWER, form=form)
        assert "已由" in again.body["toast"]["content"]

        thread = feishu.thread(question.message_id)
        assert len(thread) == 2
        assert INVENTED in thread[1].text
        assert f"<at id={REVIEWER}></at>" in str(thread[1].content)
        await feishu.wait_until(lambda: card.edits == 1)
        assert "已批准并发送" in card.text
        assert not buttons(card)


async def test_two_reviewers_clicking_together_apply_one_decision(
    feishu: FakeFeishuApi, redis_area: RedisArea
) -> None:
    second = "ou_reviewer002"
    feishu.chat_members[REVIEW_CHAT] = [REVIEWER, second]
    model = ScriptedChatModel(replies=[INVENTED])
    async with start_feishu(
        feishu, index=INDEX, redis=redis_area, model=model, min_score=THRESHOLD
    ) as bot:
        question, _ = await bot.ask_group(LEVELS_QUESTION)
        await bot.replies(question)
        await feishu.wait_until(lambda: len(feishu.in_chat(REVIEW_CHAT)) == 1)
        [card] = feishu.in_chat(REVIEW_CHAT)
        by_kind = {value_of(b)["k"]: value_of(b) for b in buttons(card)}
        approve, reject = by_kind["approve"], by_kind["reject"]
        clicks = await asyncio.gather(
            bot.click(card, approve, user=REVIEWER, form={"text": INVENTED}),
            bot.click(card, reject, user=second, form={"text": INVENTED, "reason": "编的"}),
        )
        await feishu.wait_until(lambda: card.edits == 1)
        assert len(feishu.thread(question.message_id)) == 2
        kinds = [click.body.get("toast", {}).get("type", "") for click in clicks]
        assert kinds.count("success") <= 1


async def test_ask_a_human_under_a_refusal_reaches_a_colleague_and_back(
    bot: FeishuBot, feishu: FakeFeishuApi
) -> None:
    question, _ = await bot.ask_group(OUT_OF_KB)
    [refusal] = await bot.replies(question)
    ask = value_of(next(b for b in buttons(refusal) if value_of(b)["k"] == "ask"))
    asked = await bot.click(refusal, ask, user=ALICE)
    assert asked.body["toast"]["type"] == "success"
    again = await bot.click(refusal, ask, user=ALICE)
    assert again.body["toast"]["content"] == "已经转给同事了，请稍候。"
    await feishu.wait_until(lambda: len(feishu.in_chat(REVIEW_CHAT)) == 1)
    [gap] = feishu.in_chat(REVIEW_CHAT)
    assert OUT_OF_KB in gap.text
    answer = value_of(next(b for b in buttons(gap) if value_of(b)["k"] == "answer"))
    await bot.click(gap, answer, user=REVIEWER, form={"text": "火星上没有天气预报，请问行政部。"})
    await feishu.wait_until(lambda: len(feishu.thread(question.message_id)) == 2)
    reply = feishu.thread(question.message_id)[1]
    assert "火星上没有天气预报，请问行政部。" in reply.text
    assert f"<at id={REVIEWER}></at>" in reply.text
    await feishu.wait_until(lambda: gap.edits == 1)
    assert "已由同事回答" in gap.text
