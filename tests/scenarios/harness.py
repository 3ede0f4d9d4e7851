"""Drive the real bot like Slack does: signed HTTP requests in, the fake Web API watching out.

:func:`compose` builds the app with the function ``python -m bot`` calls
(:func:`bot.root.compose.compose`: settings read from an environment mapping — :func:`bot_env`:
HTTP mode, ``SLACK_API_URL`` at a :class:`~tests.fakes.slack_api.FakeSlackApi` —, Redis client,
reviewed answers, pipeline, question records, web app) and serves it on a free 127.0.0.1 port.
A test may hand it a pipeline (:func:`hashing_pipeline`: the sample docs/ with test-speed
embeddings and a chat model the test chooses); without one it is the root's own
(``rag.serve_pipeline``). :func:`start_bot`
is the short form, and :class:`RunningBot` signs and sends events and clicks; ``await bot.idle()``
returns once everything sent has been handled (:mod:`tests.fakes.handled`), so a test asserts
"nothing else was sent" without waiting for a quiet window.
"""

from __future__ import annotations

import itertools
import json
import socket
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
from aiohttp import web
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from slack_sdk.signature import SignatureVerifier

from bot.records import Background
from bot.root import compose as root
from bot.root.services import ClosablePipeline, Seams
from bot.slack.client import RateLimitRetry
from bot.slack.server import BOLT
from rag import HttpRetry, answering_retry
from rag.cache.answers import MemoryCache
from rag.generate.extractive import ExtractiveChatModel
from rag.generate.llm import Generator
from rag.generate.retry import RetryPolicy
from rag.ingest.loaders import load_folder
from rag.pipeline import Pipeline
from rag.reviewed.answers import ReviewedAnswers
from rag.scopes.file import read_scopes
from rag.scopes.sets import ScopeCatalog
from rag.search.build import index_documents
from rag.search.embeddings import HashingEmbeddings
from rag.search.index import Index
from rag.settings import Settings
from tests.fakes.handled import IDLE_SECONDS, Handled
from tests.fakes.slack_api import BOT_ID, BOT_TOKEN, BOT_USER_ID, TEAM_ID, FakeSlackApi

SIGNING_SECRET = "test-signing-secret-citebot"
REVIEW_CHANNEL = "C0REVIEW"
CHANNEL = "C0GENERAL"
DM = "D0ALICE"
ALICE = "U0ALICE"
DOCS = Path(__file__).resolve().parents[2] / "docs"
TEST_MIN_SCORE = -1.0
"""A fixed gate for HashingEmbeddings over the sample docs (tests/reliability use it); the
scenario tests here derive theirs from the index with :func:`threshold`."""

IN_KB = "退费怎么算？"
IN_KB_EN = "How many days of annual leave do I get?"
OUT_OF_KB = "火星上的天气怎么样？"

_ids = itertools.count(1)


def sample_index() -> Index:
    docs, _ = load_folder(DOCS)
    return index_documents(docs, embeddings=HashingEmbeddings())


def threshold(index: Index) -> float:
    """A gate between the sample questions: the in-KB ones pass, the unrelated one is refused.

    Derived from the index rather than fixed, so edits to docs/ or to the test embeddings'
    score scale don't silently turn these scenarios into refusals (or answers)."""
    inside = min(index.search(question, 1)[0].score for question in (IN_KB, IN_KB_EN))
    outside = index.search(OUT_OF_KB, 1)[0].score
    if not inside > outside:
        msg = f"sample docs no longer separate in-KB ({inside}) from out-of-KB ({outside})"
        raise AssertionError(msg)
    return (inside + outside) / 2


class CountingChatModel(BaseChatModel):
    """Wraps a chat model and counts the calls that reach it."""

    inner: BaseChatModel
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return f"counting-{self.inner._llm_type}"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls += 1
        return self.inner._generate(messages, stop=stop, **kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls += 1
        return await self.inner._agenerate(messages, stop=stop, **kwargs)


def counting(inner: BaseChatModel | None = None) -> CountingChatModel:
    return CountingChatModel(inner=inner or ExtractiveChatModel())


def sign(body: bytes, timestamp: int | None = None) -> dict[str, str]:
    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(SIGNING_SECRET).generate_signature(timestamp=ts, body=body)
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": str(signature)}


def envelope(event: dict[str, Any], event_id: str | None = None) -> dict[str, Any]:
    return {
        "token": "legacy-unused",
        "team_id": TEAM_ID,
        "api_app_id": "A0CITEBOT",
        "type": "event_callback",
        "event_id": event_id or f"Ev{next(_ids):08d}",
        "event_time": int(time.time()),
        "authorizations": [
            {"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True, "enterprise_id": None}
        ],
        "event": event,
    }


def new_ts() -> str:
    return f"1700000000.{next(_ids):06d}"


def mention(text: str, *, ts: str | None = None, thread_ts: str | None = None) -> dict[str, Any]:
    ts = ts or new_ts()
    event = {
        "type": "app_mention",
        "user": ALICE,
        "text": f"<@{BOT_USER_ID}> {text}",
        "ts": ts,
        "channel": CHANNEL,
        "event_ts": ts,
    }
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event


def direct(text: str, **extra: Any) -> dict[str, Any]:
    ts = new_ts()
    return {
        "type": "message",
        "channel_type": "im",
        "user": ALICE,
        "text": text,
        "ts": ts,
        "channel": DM,
        "event_ts": ts,
        **extra,
    }


@dataclass
class RunningBot:
    url: str
    http: aiohttp.ClientSession
    handled: Handled

    async def idle(self, *, within: float = IDLE_SECONDS) -> None:
        """Once every request sent so far has been handled: nothing more will be sent."""
        await self.handled.idle(within=within)

    async def post(self, body: bytes, headers: dict[str, str]) -> aiohttp.ClientResponse:
        async with self.http.post(f"{self.url}/slack/events", data=body, headers=headers) as r:
            await r.read()
            return r

    async def send(
        self, event_body: dict[str, Any], *, retry_num: int | None = None
    ) -> aiohttp.ClientResponse:
        body = json.dumps(event_body).encode()
        headers = {"Content-Type": "application/json", **sign(body)}
        if retry_num is not None:
            headers["X-Slack-Retry-Num"] = str(retry_num)
            headers["X-Slack-Retry-Reason"] = "http_timeout"
        return await self.post(body, headers)

    async def click(self, payload: dict[str, Any]) -> aiohttp.ClientResponse:
        body = f"payload={quote(json.dumps(payload))}".encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded", **sign(body)}
        return await self.post(body, headers)


def button_click(
    slack: FakeSlackApi, *, channel: str, message_ts: str, button: dict[str, Any], user: str
) -> dict[str, Any]:
    message = next(m for m in slack.messages if m.ts == message_ts)
    return {
        "type": "block_actions",
        "user": {"id": user, "username": "bob", "name": "bob", "team_id": TEAM_ID},
        "api_app_id": "A0CITEBOT",
        "token": "legacy-unused",
        "trigger_id": slack.new_trigger_id(),
        "team": {"id": TEAM_ID, "domain": "citebot-test"},
        "container": {
            "type": "message",
            "message_ts": message_ts,
            "channel_id": channel,
            "is_ephemeral": False,
            "thread_ts": message.thread_ts,
        },
        "channel": {"id": channel, "name": "general"},
        "message": {
            "type": "message",
            "user": BOT_USER_ID,
            "bot_id": BOT_ID,
            "ts": message_ts,
            "thread_ts": message.thread_ts,
            "text": message.text,
            "blocks": message.blocks,
        },
        "state": {"values": {}},
        "response_url": "https://hooks.slack.com/actions/T0/1/x",
        "actions": [{**button, "block_id": "b", "action_ts": str(time.time())}],
    }


PipelineFactory = Callable[[Settings, ReviewedAnswers], ClosablePipeline]
"""Builds the answer pipeline from the settings and the reviewed answers the root made (a test's
chat model and test-speed index); ``None``: ``rag.serve_pipeline``'s, as ``python -m bot``."""


def bot_env(slack: FakeSlackApi, **extra: str) -> dict[str, str]:
    """The environment ``python -m bot`` reads for a test: HTTP mode against the fake Slack API,
    with a review channel (required); ``extra`` adds or overrides variables."""
    return {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": slack.url,
        "REVIEW_CHANNEL": REVIEW_CHANNEL,
        **extra,
    }


@dataclass
class Served:
    url: str
    http: aiohttp.ClientSession
    handled: Handled
    """Counts the Bolt app's listener runs: ``await handled.idle()`` before asserting that
    nothing else was sent."""


@asynccontextmanager
async def compose(
    env: Mapping[str, str],
    *,
    pipeline: PipelineFactory | None = None,
    with_review: bool = True,
    feishu_retry: HttpRetry | None = None,
    records: Background | None = None,
) -> AsyncIterator[Served]:
    """The app ``python -m bot`` runs, composed from ``env`` by the same function
    (:func:`bot.root.compose.compose`), served on a free port.

    The seams are the root's (:class:`bot.root.services.Seams`): the pipeline (``pipeline``),
    the review desk (``with_review``), the question records (``records``; by default the
    root's own, under INDEX_DIR — a fresh directory unless ``env`` names one — or in Redis) and
    the platforms' retry waits (never slept here)."""
    with tempfile.TemporaryDirectory(prefix="citebot-index-") as index_dir:
        env = {"INDEX_DIR": index_dir, **env}
        seams = Seams(
            rate_limit=RateLimitRetry(sleep=_no_wait, jitter=0),
            feishu_retry=feishu_retry or answering_retry(sleep=_no_wait),
            with_review=with_review,
        )
        if pipeline is not None:
            factory = pipeline
            seams = replace(
                seams,
                pipeline=lambda config, _redis, reviewed, _core: factory(config.bot.rag, reviewed),
            )
        if records is not None:
            seams = replace(seams, records=lambda *_: records)
        composed = root.compose(env, seams)
        assert composed.app is not None, "a test environment without Slack or Feishu"
        async with serving(composed.app) as served:
            yield served


@asynccontextmanager
async def serving(app: web.Application) -> AsyncIterator[Served]:
    """Serve ``app`` over real HTTP on a free loopback port: its base URL, a client and the
    count of its Slack listener runs."""
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()  # startup: the Bolt app is built (and Socket Mode connected)
    handled = Handled()
    if BOLT in app:  # Slack is on
        bolt = app[BOLT].bolt
        assert bolt is not None
        handled.install(bolt)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    await web.SockSite(runner, sock).start()
    try:
        async with aiohttp.ClientSession() as http:
            yield Served(f"http://127.0.0.1:{port}", http, handled)
    finally:
        await runner.cleanup()


async def _no_wait(seconds: float) -> None:
    return None


def hashing_pipeline(
    index: Index, *, model: BaseChatModel | None = None, min_score: float | None = None
) -> PipelineFactory:
    """A pipeline over ``index`` (test-speed embeddings) with ``model``, gated between the sample
    questions unless ``min_score`` is given."""

    def build(settings: Settings, reviewed: ReviewedAnswers) -> Pipeline:
        scopes = read_scopes(settings.scopes_file)  # SCOPES_FILE, as build_pipeline is given
        return Pipeline(
            index=index,
            generator=Generator(model or counting(), RetryPolicy(sleep=_no_wait)),
            cache=MemoryCache(),
            min_score=threshold(index) if min_score is None else min_score,
            reviewed=reviewed,
            scopes=ScopeCatalog() if scopes is None else scopes.catalog,
        )

    return build


@asynccontextmanager
async def start_bot(
    slack: FakeSlackApi,
    *,
    index: Index,
    model: BaseChatModel | None = None,
    with_review: bool = False,
    min_score: float | None = None,
    records: Background | None = None,
) -> AsyncIterator[RunningBot]:
    pipeline = hashing_pipeline(index, model=model, min_score=min_score)
    async with compose(
        bot_env(slack), pipeline=pipeline, with_review=with_review, records=records
    ) as served:
        yield RunningBot(served.url, served.http, served.handled)
