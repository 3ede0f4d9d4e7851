"""The composition root (bot/root/): the routes each mode serves, what /healthz says of Redis."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web

from bot.feishu.server import EVENTS_PATH as FEISHU_EVENTS_PATH
from bot.feishu.settings import FeishuSettings
from bot.metrics.exposition import METRICS_PATH
from bot.root.config import Config
from bot.root.services import Seams, Services, redis_client, reviewed_answers, rewriter
from bot.root.web import create_web_app
from bot.settings import BotSettings
from bot.slack.identity import TokenRefused
from bot.slack.server import EVENTS_PATH, HEALTH_PATH
from rag import GuardedRedis
from rag.cache.answers import MemoryCache
from rag.generate.extractive import ExtractiveChatModel
from rag.generate.llm import Generator
from rag.pipeline import Pipeline
from rag.search.index import Index
from rag.serving.live import LivePipeline
from rag.settings import Settings
from tests.fakes.slack_api import BOT_ID, BOT_TOKEN, BOT_USER_ID, TEAM_ID, FakeSlackApi
from tests.scenarios.harness import REVIEW_CHANNEL, SIGNING_SECRET, sample_index, threshold


@pytest.fixture(scope="module")
def index() -> Index:
    return sample_index()


def _pipeline(index: Index) -> Pipeline:
    return Pipeline(
        index=index,
        generator=Generator(ExtractiveChatModel()),
        cache=MemoryCache(),
        min_score=threshold(index),
    )


def _settings(slack_api: FakeSlackApi, **extra: str) -> BotSettings:
    return BotSettings(
        rag=Settings(),
        bot_token=BOT_TOKEN,
        signing_secret=extra.get("signing_secret", SIGNING_SECRET),
        app_token=extra.get("app_token"),
        api_url=slack_api.url,
        review_channel=REVIEW_CHANNEL,
    )


def _app(
    settings: BotSettings,
    index: Index,
    *,
    feishu: FeishuSettings | None = None,
    redis: GuardedRedis | None = None,
    with_review: bool = True,
) -> web.Application:
    """The root's web app over a test pipeline, without question records (nothing is asked)."""
    services = Services(redis=redis, reviewed=reviewed_answers(redis), pipeline=_pipeline(index))
    config = Config(bot=settings, feishu=feishu, scopes=None)
    return create_web_app(config, services, Seams(records=lambda *_: None, with_review=with_review))


def _paths(app: web.Application) -> set[str]:
    return {resource.canonical for resource in app.router.resources()}


def test_socket_mode_serves_no_event_route_that_would_skip_signatures(
    slack_api: FakeSlackApi, index: Index
) -> None:
    settings = _settings(slack_api, app_token="xapp-1-test")
    app = _app(settings, index)
    assert _paths(app) == {HEALTH_PATH, METRICS_PATH}


def test_http_mode_serves_events_health_and_metrics(slack_api: FakeSlackApi, index: Index) -> None:
    app = _app(_settings(slack_api), index)
    assert _paths(app) == {EVENTS_PATH, HEALTH_PATH, METRICS_PATH}


@pytest.fixture
async def served(
    slack_api: FakeSlackApi, index: Index, redis_url: str, redis_prefix: str
) -> AsyncIterator[tuple[str, list[str]]]:
    """The HTTP app over a real Redis, and a second one over a Redis nobody answers."""
    runners, urls = [], []
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"redis://127.0.0.1:{sock.getsockname()[1]}/0"
    for url in (redis_url, dead):
        redis = redis_client(url, redis_prefix)
        app = _app(_settings(slack_api), index, redis=redis, with_review=False)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        runners.append(runner)
        urls.append(f"http://127.0.0.1:{port}{HEALTH_PATH}")
    yield urls[0], urls[1:]
    for runner in runners:
        await runner.cleanup()


async def test_healthz_says_whether_redis_answers(served: tuple[str, list[str]]) -> None:
    live, [dead] = served
    async with aiohttp.ClientSession() as http:
        async with http.get(live) as response:
            up = json.loads(await response.text())
        async with http.get(dead) as response:
            down = json.loads(await response.text())
    assert (up["redis"], up["status"]) == ("ok", "ok")
    # Who the bot is in Slack, from auth.test at start (the fake's canned bot).
    assert up["slack"] == {
        "team": "citebot test",
        "team_id": TEAM_ID,
        "bot_user": "citebot",
        "bot_user_id": BOT_USER_ID,
        "bot_id": BOT_ID,
    }
    assert (down["redis"], down["status"]) == ("unreachable", "degraded")
    assert "redis://" not in json.dumps([up, down])


async def test_a_token_slack_refuses_stops_start_up_with_one_line(
    slack_api: FakeSlackApi, index: Index
) -> None:
    """A well-formed but wrong token once started the bot with /healthz saying ok."""
    slack_api.refused_tokens.add(BOT_TOKEN)
    runner = web.AppRunner(_app(_settings(slack_api), index), access_log=None)
    with pytest.raises(TokenRefused) as refused:
        await runner.setup()
    await runner.cleanup()
    assert str(refused.value).startswith("SLACK_BOT_TOKEN was refused by Slack (invalid_auth)")
    assert "\n" not in str(refused.value)
    assert BOT_TOKEN not in str(refused.value)
    assert [call.method for call in slack_api.calls] == ["auth.test"]  # nothing else tried


async def test_slack_unreachable_at_start_still_starts_and_says_the_identity_is_unknown(
    index: Index,
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        nobody = f"http://127.0.0.1:{sock.getsockname()[1]}/api/"
    settings = BotSettings(
        rag=Settings(),
        bot_token=BOT_TOKEN,
        signing_secret=SIGNING_SECRET,
        api_url=nobody,
        review_channel=REVIEW_CHANNEL,
    )
    runner = web.AppRunner(_app(settings, index, with_review=False), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        async with aiohttp.ClientSession() as http:
            url = f"http://127.0.0.1:{runner.addresses[0][1]}{HEALTH_PATH}"
            async with http.get(url) as response:
                health = json.loads(await response.text())
    finally:
        await runner.cleanup()
    assert health["slack"] == "unknown: auth.test did not answer at start"


def _feishu() -> FeishuSettings:
    return FeishuSettings(
        app_id="cli_citebottest00001",
        app_secret="s",
        encrypt_key="k",
        verification_token="t",
    )


def test_feishu_alone_serves_its_events_health_and_metrics(index: Index) -> None:
    app = _app(BotSettings(rag=Settings()), index, feishu=_feishu())
    assert _paths(app) == {FEISHU_EVENTS_PATH, HEALTH_PATH, METRICS_PATH}


def test_slack_and_feishu_share_one_app(slack_api: FakeSlackApi, index: Index) -> None:
    app = _app(_settings(slack_api), index, feishu=_feishu())
    assert _paths(app) == {EVENTS_PATH, FEISHU_EVENTS_PATH, HEALTH_PATH, METRICS_PATH}


def test_feishu_long_connection_serves_no_event_route(index: Index) -> None:
    settings = FeishuSettings(app_id="cli_citebottest00001", app_secret="s", mode="ws")
    app = _app(BotSettings(rag=Settings()), index, feishu=settings)
    assert _paths(app) == {HEALTH_PATH, METRICS_PATH}


def test_follow_ups_are_rewritten_by_the_configured_model_of_the_live_pipeline(
    index: Index,
) -> None:
    """``python -m bot`` serves a live pipeline wrapped by the question records; the follow-up
    rewriter must still find the configured chat model behind it."""
    pipeline = _pipeline(index)
    live = LivePipeline(pipeline)
    configured = Config(
        bot=BotSettings(rag=Settings.from_env({"LLM_API_KEY": "k", "LLM_MODEL": "m"})),
        feishu=None,
        scopes=None,
    )
    assert rewriter(configured, live).generator is pipeline.generator
    offline = Config(bot=BotSettings(rag=Settings()), feishu=None, scopes=None)
    assert rewriter(offline, live).generator is None
