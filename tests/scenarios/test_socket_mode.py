"""Socket Mode: the same bot, connected out over a WebSocket instead of receiving HTTP."""

from __future__ import annotations

import re

from rag.search.index import Index
from tests.fakes.slack_api import FakeSlackApi
from tests.scenarios.harness import (
    CHANNEL,
    IN_KB,
    bot_env,
    compose,
    envelope,
    hashing_pipeline,
    mention,
)


async def test_socket_mode_acks_the_envelope_and_answers_in_the_thread(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    env = bot_env(slack_api, SLACK_APP_TOKEN="xapp-1-test")
    del env["SLACK_SIGNING_SECRET"]  # Slack does not sign Socket Mode envelopes
    pipeline = hashing_pipeline(docs_index)
    async with compose(env, pipeline=pipeline, with_review=False) as bot:  # connected at startup
        await slack_api.socket_mode.wait_connected()
        event = mention(IN_KB)
        envelope_id = await slack_api.socket_mode.push(envelope(event))
        ack = await slack_api.socket_mode.wait_for_ack(envelope_id)
        await bot.handled.idle()
    assert ack["envelope_id"] == envelope_id
    [reply] = slack_api.in_channel(CHANNEL)
    assert reply.thread_ts == event["ts"]
    assert re.search(r"\[\d+\]", reply.text)
    assert slack_api.calls_to("apps.connections.open")[0].token == "xapp-1-test"
