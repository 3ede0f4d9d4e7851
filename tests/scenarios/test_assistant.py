"""Slack's AI surface in DMs over signed HTTP: opening the bot's DM sets suggested prompts drawn
from the documents' headings."""

from __future__ import annotations

from rag.search.index import Index
from tests.fakes.slack_api import FakeSlackApi
from tests.scenarios.harness import ALICE, DM, envelope, new_ts, start_bot


async def test_opening_the_dm_sets_suggested_prompts_from_the_documents_headings(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    thread_ts = new_ts()
    started = {
        "type": "assistant_thread_started",
        "assistant_thread": {
            "user_id": ALICE,
            "context": {"channel_id": "C0GENERAL", "team_id": "T0CITEBOT"},
            "channel_id": DM,
            "thread_ts": thread_ts,
        },
        "event_ts": thread_ts,
    }
    async with start_bot(slack_api, index=docs_index) as bot:
        assert (await bot.send(envelope(started))).status == 200
        await bot.idle()
    [call] = slack_api.suggested
    assert (call["channel_id"], call["thread_ts"]) == (DM, thread_ts)
    headings = {heading for chunk in docs_index.chunks for heading in chunk.heading}
    prompts = call["prompts"]
    assert 1 <= len(prompts) <= 4
    for prompt in prompts:
        assert any(prompt["title"] in heading for heading in headings), prompt
        assert prompt["title"] in prompt["message"]
    assert not slack_api.messages  # nothing is posted: the prompts are the greeting
