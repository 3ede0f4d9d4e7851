"""Socket Mode: the same bot, connected out over a WebSocket instead of receiving HTTP."""

from __future__ import annotations

from aiohttp import web

from bot.__main__ import create_web_app, reviewed_answers
from bot.settings import BotSettings
from rag.cache.answers import MemoryCache
from rag.generate.extractive import ExtractiveChatModel
from rag.generate.llm import Generator
from rag.pipeline import Pipeline
from rag.search.index import Index
from rag.settings import Settings
from tests.fakes.slack_api import BOT_TOKEN, FakeSlackApi
from tests.scenarios.harness import CHANNEL, IN_KB, REVIEW_CHANNEL, envelope, mention, threshold


async def test_socket_mode_acks_the_envelope_and_answers_in_the_thread(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    settings = BotSettings(
        rag=Settings(),
        bot_token=BOT_TOKEN,
        app_token="xapp-1-test",
        api_url=slack_api.url,
        review_channel=REVIEW_CHANNEL,
    )
    pipeline = Pipeline(
        index=docs_index,
        generator=Generator(ExtractiveChatModel()),
        cache=MemoryCache(),
        min_score=threshold(docs_index),
    )
    app = create_web_app(
        settings, pipeline=pipeline, redis=None, reviewed=reviewed_answers(None), with_review=False
    )
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()  # startup: Bolt app built, WebSocket connected
    try:
        await slack_api.socket_mode.wait_connected()
        event = mention(IN_KB)
        envelope_id = await slack_api.socket_mode.push(envelope(event))
        ack = await slack_api.socket_mode.wait_for_ack(envelope_id)
        await slack_api.wait_until(lambda: bool(slack_api.calls_to("chat.update")))
    finally:
        await runner.cleanup()
    assert ack["envelope_id"] == envelope_id
    [reply] = slack_api.in_channel(CHANNEL)
    assert reply.thread_ts == event["ts"]
    assert "[1]" in reply.text
    assert slack_api.calls_to("apps.connections.open")[0].token == "xapp-1-test"
