"""Review desk scenarios: signed HTTP into the real app, the fake Slack API on the other side.

A scripted chat model invents "六级" (the documents say four levels), so the citation checker
sends the draft to REVIEW_CHANNEL; reviewers then approve, edit or reject it on the card.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import pytest

from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.slack_api import FakeSlackApi, Message
from tests.fakes.slack_fixture import slack_api
from tests.redis_area import RedisArea
from tests.scenarios.review_harness import (
    ASK_CHANNEL,
    ASKER,
    IN_KB,
    INVENTED,
    OTHER_REVIEWER,
    OUTSIDER,
    REVIEW_CHANNEL,
    REVIEWER,
    ReviewBot,
    everything,
    text_input,
)

__all__ = ["slack_api"]

EDITED = "口语课共分四个级别[1]。"

MakeBot = Callable[..., Coroutine[Any, Any, ReviewBot]]


@pytest.fixture
async def make_bot(slack_api: FakeSlackApi, redis_area: RedisArea) -> AsyncIterator[MakeBot]:
    bots: list[ReviewBot] = []

    async def make(**options: Any) -> ReviewBot:
        model = options.pop("model", None) or ScriptedChatModel(replies=[INVENTED])
        bot = ReviewBot(slack_api, redis_area, model, **options)
        await bot.start()
        bots.append(bot)
        return bot

    yield make
    for bot in bots:
        await bot.close()


async def card_for(slack: FakeSlackApi, bot: ReviewBot, question: str = IN_KB) -> Message:
    """Ask, and return the review card once the asker has been told (the desk is done)."""
    asked = await bot.mention(question)
    [card] = await slack.wait_for_messages(1, channel=REVIEW_CHANNEL)
    await slack.wait_until(lambda: any("人工复核" in m.text for m in thread(slack, asked)))
    return card


def thread(slack: FakeSlackApi, ts: str) -> list[Message]:
    return slack.thread(ASK_CHANNEL, ts)


def current(slack: FakeSlackApi, card: Message) -> Message:
    return next(m for m in slack.messages if m.channel == card.channel and m.ts == card.ts)


async def decided(slack: FakeSlackApi, card: Message) -> Message:
    await slack.wait_until(lambda: current(slack, card).edits > 0)
    return current(slack, card)


@pytest.mark.parametrize(
    ("draft", "problem"),
    [
        (
            INVENTED,
            "回答说「六级」，所引资料 [1] 写的是「四个级别」；"
            "回答说「12 课时」，所引资料 [1] 写的是「16 课时」",
        ),
        ("口语课共分四个级别[7]。", "引用了不存在的编号 [7]，本次只提供了 1~3"),
    ],
    ids=["invented-number", "unknown-reference"],
)
async def test_unverified_draft_goes_to_reviewers_not_to_the_asker(
    slack_api: FakeSlackApi, make_bot: MakeBot, draft: str, problem: str
) -> None:
    bot = await make_bot(model=ScriptedChatModel(replies=[draft]))

    card = await card_for(slack_api, bot)

    shown = everything(card)
    for expected in (f"<@{ASKER}>", f"<#{ASK_CHANNEL}>", IN_KB, draft, "archives/C0ASK"):
        assert expected in shown
    labels = [json.dumps(block, ensure_ascii=False) for block in card.blocks]
    listed = card.blocks[next(n for n, b in enumerate(labels) if "核对发现的问题" in b) + 1]
    # the sentence quoted once, under it each problem with the source marker it cites
    assert listed["text"]["text"] == f"> {draft}\n• {problem}"
    assert "levels.md" in shown
    assert "—" in shown  # each source with its score
    # the question is Chinese, so is the card: its buttons say 批准并发送, never "Approve"
    assert "批准并发送" in shown
    assert "Approve" not in shown
    assert not any(draft in everything(m) for m in slack_api.in_channel(ASK_CHANNEL))


async def test_approve_posts_the_draft_in_the_askers_thread_and_updates_the_card(
    slack_api: FakeSlackApi, make_bot: MakeBot
) -> None:
    bot = await make_bot()
    card = await card_for(slack_api, bot)
    card_ts = card.ts
    asked = slack_api.calls_to("chat.getPermalink")[0].args["message_ts"]

    assert await bot.click(card, "review_approve", user=REVIEWER) == 200

    after = await decided(slack_api, card)
    answer = next(m for m in thread(slack_api, asked) if "六级" in everything(m))
    assert answer.thread_ts == asked
    assert f"<@{REVIEWER}>" in everything(answer)  # "reviewed by @x on <date>"
    assert "已批准并发送" in everything(after)
    assert f"<@{REVIEWER}>" in everything(after)
    assert all(block["type"] != "actions" for block in after.blocks)
    assert card_ts == after.ts


async def test_edit_opens_the_draft_in_a_modal_and_posts_what_the_reviewer_wrote(
    slack_api: FakeSlackApi, make_bot: MakeBot
) -> None:
    bot = await make_bot()
    card = await card_for(slack_api, bot)

    await bot.click(card, "review_edit", user=REVIEWER)
    await slack_api.wait_until(lambda: len(slack_api.views) == 1)
    view = slack_api.views[0]
    field = next(b for b in view["blocks"] if b.get("block_id") == "text_input")
    assert field["element"]["initial_value"] == INVENTED

    reply = await bot.submit(
        view, {"text_input": text_input("口语课共分四个级别[1]。")}, user=REVIEWER
    )

    assert reply == ""
    after = await decided(slack_api, card)
    assert "口语课共分四个级别[1]。" in everything(after)
    posted = [m for m in slack_api.in_channel(ASK_CHANNEL) if "四个级别" in everything(m)]
    assert len(posted) == 1
    assert not any("六级" in everything(m) for m in slack_api.in_channel(ASK_CHANNEL))


async def test_empty_edit_is_refused_inside_the_modal(
    slack_api: FakeSlackApi, make_bot: MakeBot
) -> None:
    bot = await make_bot()
    card = await card_for(slack_api, bot)
    await bot.click(card, "review_edit", user=REVIEWER)
    await slack_api.wait_until(lambda: len(slack_api.views) == 1)

    reply = await bot.submit(slack_api.views[0], {"text_input": text_input("  ")}, user=REVIEWER)

    assert json.loads(reply)["response_action"] == "errors"
    await bot.idle()
    assert current(slack_api, card).edits == 0


async def test_reject_sends_the_refusal_and_the_same_draft_is_not_queued_again(
    slack_api: FakeSlackApi, make_bot: MakeBot
) -> None:
    bot = await make_bot()
    card = await card_for(slack_api, bot)
    await bot.click(card, "review_reject", user=REVIEWER)
    await slack_api.wait_until(lambda: len(slack_api.views) == 1)

    await bot.submit(slack_api.views[0], {"reason_input": text_input("级别数不对")}, user=REVIEWER)

    after = await decided(slack_api, card)
    assert "已驳回" in everything(after)
    assert "级别数不对" in everything(after)
    await slack_api.wait_until(
        lambda: any("可能会在这里跟进" in m.text for m in slack_api.in_channel(ASK_CHANNEL))
    )
    refusal = next(m for m in slack_api.in_channel(ASK_CHANNEL) if "跟进" in m.text)
    assert "资料里没写" in refusal.text

    await bot.mention(IN_KB)
    await bot.idle()
    assert len(slack_api.in_channel(REVIEW_CHANNEL)) == 1


async def test_someone_who_is_not_a_reviewer_is_told_so_and_nothing_changes(
    slack_api: FakeSlackApi, make_bot: MakeBot
) -> None:
    bot = await make_bot()
    card = await card_for(slack_api, bot)
    await bot.idle()
    before = len(slack_api.messages)

    await bot.click(card, "review_approve", user=OUTSIDER)
    await bot.click(card, "review_edit", user=OUTSIDER)

    await bot.idle()
    assert len(slack_api.ephemerals) == 2
    assert {e.user for e in slack_api.ephemerals} == {OUTSIDER}
    assert "只有复核人员" in slack_api.ephemerals[0].text
    assert len(slack_api.messages) == before
    assert current(slack_api, card).edits == 0
    assert slack_api.views == []
    assert await bot.click(card, "review_approve", user=REVIEWER) == 200
    await decided(slack_api, card)


async def test_two_reviewers_approving_at_once_send_one_answer(
    slack_api: FakeSlackApi, make_bot: MakeBot
) -> None:
    first = await make_bot()
    second = await make_bot()  # another process over the same Redis
    card = await card_for(slack_api, first)

    await asyncio.gather(
        first.click(card, "review_approve", user=REVIEWER),
        second.click(card, "review_approve", user=OTHER_REVIEWER),
        first.click(card, "review_approve", user=REVIEWER),  # Slack delivering a click twice
    )

    await decided(slack_api, card)
    await first.idle()
    await second.idle()
    answers = [m for m in slack_api.in_channel(ASK_CHANNEL) if "六级" in everything(m)]
    assert len(answers) == 1
    assert len(slack_api.ephemerals) == 2
    assert all("已由" in e.text for e in slack_api.ephemerals)
    assert current(slack_api, card).edits == 1


@pytest.mark.parametrize("flush_redis", [False, True], ids=["same-redis", "flushed-redis"])
async def test_a_restart_between_draft_and_decision_loses_nothing(
    slack_api: FakeSlackApi, make_bot: MakeBot, flush_redis: bool
) -> None:
    bot = await make_bot()
    card = await card_for(slack_api, bot)
    await bot.idle()

    await bot.restart()
    if flush_redis:
        await bot.flush_redis()
    await bot.click(card, "review_approve", user=REVIEWER)

    after = await decided(slack_api, card)
    assert "已批准并发送" in everything(after)
    answers = [m for m in slack_api.in_channel(ASK_CHANNEL) if "六级" in everything(m)]
    assert len(answers) == 1


async def test_the_same_question_after_approval_gets_the_reviewed_answer_without_the_model(
    slack_api: FakeSlackApi, make_bot: MakeBot
) -> None:
    bot = await make_bot()
    card = await card_for(slack_api, bot)
    await bot.click(card, "review_edit", user=REVIEWER)
    await slack_api.wait_until(lambda: len(slack_api.views) == 1)
    await bot.submit(
        slack_api.views[0], {"text_input": text_input("口语课共分四个级别[1]。")}, user=REVIEWER
    )
    await decided(slack_api, card)
    calls = bot.model.calls

    asked = await bot.mention("口语课一共有几级")

    await slack_api.wait_until(
        lambda: any("四个级别" in everything(m) for m in thread(slack_api, asked))
    )
    reply = next(m for m in thread(slack_api, asked) if "四个级别" in everything(m))
    assert f"<@{REVIEWER}>" in everything(reply)
    # the reviewed answer keeps its source: the button named by the document's title, its
    # value pointing at the passage
    assert '"text": "[1] 课程体系' in everything(reply)
    assert "courses/levels.md#" in everything(reply)
    assert bot.model.calls == calls
    assert len(slack_api.in_channel(REVIEW_CHANNEL)) == 1


async def test_app_home_lists_what_waits_with_a_link_and_drops_it_once_decided(
    slack_api: FakeSlackApi, make_bot: MakeBot
) -> None:
    bot = await make_bot()
    card = await card_for(slack_api, bot)
    await bot.idle()

    await bot.home_opened(REVIEWER)
    await slack_api.wait_until(lambda: len(slack_api.calls_to("views.publish")) == 1)
    home = json.dumps(slack_api.calls_to("views.publish")[0].args["view"], ensure_ascii=False)
    assert IN_KB in home
    assert f"archives/{REVIEW_CHANNEL}/p{card.ts.replace('.', '')}" in home

    await bot.click(card, "review_approve", user=REVIEWER)
    await decided(slack_api, card)
    await bot.home_opened(REVIEWER)
    await slack_api.wait_until(lambda: len(slack_api.calls_to("views.publish")) == 2)
    assert IN_KB not in json.dumps(slack_api.calls_to("views.publish")[1].args["view"])


async def test_without_reviewers_set_the_review_channels_members_decide(
    slack_api: FakeSlackApi, make_bot: MakeBot
) -> None:
    slack_api.members[REVIEW_CHANNEL] = [OTHER_REVIEWER]
    bot = await make_bot(reviewers=None)
    card = await card_for(slack_api, bot)

    await bot.click(card, "review_approve", user=REVIEWER)
    await slack_api.wait_until(lambda: len(slack_api.ephemerals) == 1)
    await bot.click(card, "review_approve", user=OTHER_REVIEWER)

    after = await decided(slack_api, card)
    assert f"<@{OTHER_REVIEWER}>" in everything(after)


async def test_a_decision_slack_cannot_deliver_leaves_the_card_open_for_another_try(
    slack_api: FakeSlackApi, make_bot: MakeBot
) -> None:
    bot = await make_bot()
    card = await card_for(slack_api, bot)
    slack_api.fail("chat.postMessage", "not_in_channel")

    await bot.click(card, "review_approve", user=REVIEWER)

    await slack_api.wait_until(lambda: len(slack_api.ephemerals) == 1)
    assert "卡片保持未处理" in slack_api.ephemerals[0].text
    assert current(slack_api, card).edits == 0
    await bot.click(card, "review_approve", user=REVIEWER)
    after = await decided(slack_api, card)
    assert "已批准并发送" in everything(after)


async def test_each_decision_is_one_structured_log_line(
    slack_api: FakeSlackApi, make_bot: MakeBot, caplog: pytest.LogCaptureFixture
) -> None:
    bot = await make_bot()
    card = await card_for(slack_api, bot)
    buttons = json.dumps(card.blocks)

    with caplog.at_level("INFO", logger="bot.review.desk"):
        await bot.click(card, "review_approve", user=REVIEWER)
        await decided(slack_api, card)

    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("review_decision")]
    assert len(lines) == 1
    fields = json.loads(lines[0].removeprefix("review_decision "))
    assert fields["verdict"] == "approved"
    assert fields["reviewer"] == REVIEWER
    assert len(fields["question_hash"]) == 16
    assert IN_KB not in lines[0]
    assert 0 <= fields["latency_s"] < 60
    assert fields["review_id"] in buttons  # the ticket on the card's buttons
    assert fields["review_id"] in everything(current(slack_api, card))  # and on the decided card


async def test_an_edit_submitted_after_a_restart_with_a_flushed_redis_still_lands(
    slack_api: FakeSlackApi, make_bot: MakeBot
) -> None:
    bot = await make_bot()
    card = await card_for(slack_api, bot)
    await bot.click(card, "review_edit", user=REVIEWER)
    await slack_api.wait_until(lambda: len(slack_api.views) == 1)

    await bot.restart()
    await bot.flush_redis()
    await bot.submit(slack_api.views[0], {"text_input": text_input(EDITED)}, user=REVIEWER)

    after = await decided(slack_api, card)
    assert "已修改并发送" in everything(after)
    assert "口语课一共六级" in everything(after)  # the card keeps the draft it was built with
    assert len([m for m in slack_api.in_channel(ASK_CHANNEL) if EDITED in m.text]) == 1


async def test_a_modal_slack_refuses_to_open_tells_the_reviewer_to_click_again(
    slack_api: FakeSlackApi, make_bot: MakeBot
) -> None:
    bot = await make_bot()
    card = await card_for(slack_api, bot)
    slack_api.trigger_ttl_seconds = -1.0  # every trigger_id arrives expired

    await bot.click(card, "review_edit", user=REVIEWER)

    await slack_api.wait_until(lambda: len(slack_api.ephemerals) == 1)
    assert "再点一次" in slack_api.ephemerals[0].text
    assert slack_api.calls_to("views.open")[0].response["error"] == "expired_trigger_id"
    assert current(slack_api, card).edits == 0
