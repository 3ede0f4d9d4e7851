"""Clicking a citation shows the cited passage to the clicker only, from the index."""

from __future__ import annotations

from typing import Any

from bot.slack.source_ref import decode
from bot.texts import SOURCE_CHANGED, SOURCE_GONE
from rag.search.index import Index
from tests.fakes.slack_api import FakeSlackApi
from tests.scenarios.harness import (
    CHANNEL,
    IN_KB,
    RunningBot,
    button_click,
    envelope,
    mention,
    start_bot,
)

BOB = "U0BOB"


def _first_button(blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return next(e for b in blocks if b["type"] == "actions" for e in b["elements"])


async def _answered(bot: RunningBot, slack: FakeSlackApi) -> tuple[str, dict[str, Any]]:
    await bot.idle()
    [reply] = slack.messages
    return reply.ts, _first_button(reply.blocks)


async def test_citation_click_shows_the_passage_to_the_clicker_only(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    async with start_bot(slack_api, index=docs_index) as bot:
        await bot.send(envelope(mention(IN_KB)))
        ts, button = await _answered(bot, slack_api)
        click = button_click(slack_api, channel=CHANNEL, message_ts=ts, button=button, user=BOB)
        response = await bot.click(click)
        await bot.idle()
    assert response.status == 200
    [shown] = slack_api.ephemerals
    ref = decode(button["value"])
    assert ref is not None
    chunk = docs_index.chunk(ref.chunk_id)
    assert chunk is not None
    assert (shown.user, shown.channel) == (BOB, CHANNEL)
    assert shown.thread_ts == slack_api.messages[0].thread_ts
    assert chunk.source in str(shown.blocks)
    first_line = chunk.text.splitlines()[0][:20]
    assert first_line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") in str(
        shown.blocks
    )
    assert len(slack_api.messages) == 1  # nothing posted for everyone


async def test_a_changed_source_is_flagged_and_its_current_text_shown(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    async with start_bot(slack_api, index=docs_index) as bot:
        await bot.send(envelope(mention(IN_KB)))
        ts, button = await _answered(bot, slack_api)
        version, _, score, chunk_id = button["value"].split("|", 3)
        stale = {**button, "value": f"{version}|{'0' * 16}|{score}|{chunk_id}"}
        gone = {**button, "value": f"{version}|{'0' * 16}|{score}|removed/old.md#2"}
        for changed in (stale, gone):
            payload = button_click(
                slack_api, channel=CHANNEL, message_ts=ts, button=changed, user=BOB
            )
            await bot.click(payload)
        await slack_api.wait_until(lambda: len(slack_api.ephemerals) == 2)
    changed_view, gone_view = slack_api.ephemerals
    assert SOURCE_CHANGED["zh"] in str(changed_view.blocks)
    chunk = docs_index.chunk(chunk_id)
    assert chunk is not None
    assert chunk.source in str(changed_view.blocks)
    assert SOURCE_GONE["zh"] in str(gone_view.blocks)


async def test_click_falls_back_to_a_modal_when_no_ephemeral_can_be_posted(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    async with start_bot(slack_api, index=docs_index) as bot:
        await bot.send(envelope(mention(IN_KB)))
        ts, button = await _answered(bot, slack_api)
        slack_api.fail("chat.postEphemeral", "user_not_in_channel")
        await bot.click(
            button_click(slack_api, channel=CHANNEL, message_ts=ts, button=button, user=BOB)
        )
        await slack_api.wait_until(lambda: bool(slack_api.views))
    [view] = slack_api.views
    assert view["type"] == "modal"
