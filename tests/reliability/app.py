"""The production web app, composed from an environment as ``python -m bot`` does
(:func:`tests.scenarios.harness.compose`), served on a free port for the reliability suite,
with secrets that look like secrets so tests can scan for them.

Unlike the scenario harness it can run over a real Redis (answer cache, dedupe, review state,
reviewed answers all sharing the production client configuration) and any chat model, and
sends requests signed with its own secret. Event builders come from the scenario harness.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import aiohttp
from langchain_core.language_models import BaseChatModel
from slack_sdk.signature import SignatureVerifier

from rag.cache.answers import AnswerCache, MemoryCache
from rag.cache.redis_backend import RedisCache
from rag.generate.llm import Generator
from rag.generate.retry import RetryPolicy
from rag.pipeline import Pipeline
from rag.reviewed.answers import ReviewedAnswers
from rag.search.index import Index
from rag.settings import Settings
from tests.fakes.handled import Handled
from tests.fakes.slack_api import FakeSlackApi
from tests.redis_area import fresh_prefix
from tests.scenarios.harness import bot_env, compose, counting, threshold

BOT_TOKEN = "xoxb-4711-reliability-BOTTOKENSECRET"
SIGNING_SECRET = "reliability-SIGNINGSECRET-9f3a"
LLM_API_KEY = "sk-reliability-LLMKEYSECRET"
REDIS_PASSWORD = "REDISPASSWORDSECRET"
SECRETS = (BOT_TOKEN, SIGNING_SECRET, LLM_API_KEY, REDIS_PASSWORD)
REVIEW_CHANNEL = "C0REVIEW"
REVIEWER = "U0REVIEWER"


async def no_wait(_: float) -> None:
    return None


def sign(
    body: bytes, *, secret: str = SIGNING_SECRET, timestamp: int | None = None
) -> dict[str, str]:
    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body) or ""
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": signature}


@dataclass
class Bot:
    url: str
    http: aiohttp.ClientSession
    handled: Handled

    async def idle(self) -> None:
        """Once every request sent so far has been handled: nothing more will be sent."""
        await self.handled.idle()

    async def post(self, body: bytes, headers: dict[str, str]) -> int:
        async with self.http.post(f"{self.url}/slack/events", data=body, headers=headers) as r:
            await r.read()
            return r.status

    async def send(self, event_body: dict[str, Any], *, retry_num: int | None = None) -> int:
        body = json.dumps(event_body).encode()
        headers = {"Content-Type": "application/json", **sign(body)}
        if retry_num is not None:
            headers["X-Slack-Retry-Num"] = str(retry_num)
            headers["X-Slack-Retry-Reason"] = "http_timeout"
        return await self.post(body, headers)

    async def click(self, payload: dict[str, Any]) -> int:
        return (await self.interact(payload))[0]

    async def interact(self, payload: dict[str, Any]) -> tuple[int, str]:
        """A signed interactive payload (click, modal submission): status and response body."""
        body = f"payload={quote(json.dumps(payload))}".encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded", **sign(body)}
        async with self.http.post(f"{self.url}/slack/events", data=body, headers=headers) as r:
            return r.status, await r.text()

    async def get(self, path: str) -> tuple[int, str]:
        async with self.http.get(f"{self.url}{path}") as response:
            return response.status, await response.text()


@asynccontextmanager
async def serve(
    slack: FakeSlackApi,
    *,
    index: Index,
    model: BaseChatModel | None = None,
    redis_url: str | None = None,
    with_review: bool = True,
    min_score: float | None = None,
    attempts: int = 2,
) -> AsyncIterator[Bot]:
    """The app as ``python -m bot`` composes it; ``redis_url`` (a Redis of the test's own) may
    carry a password, and every key goes under a key prefix of the test's own.

    The gate defaults to the scenario harness's, derived from the index (between its in-KB and
    out-of-KB sample questions)."""
    env = bot_env(
        slack,
        SLACK_SIGNING_SECRET=SIGNING_SECRET,
        SLACK_BOT_TOKEN=BOT_TOKEN,
        LLM_API_KEY=LLM_API_KEY,
        LLM_MODEL="test-model",
        REVIEWERS=REVIEWER,
        REVIEW_CHANNEL=REVIEW_CHANNEL,
    )
    key_prefix = fresh_prefix()
    if redis_url is not None:
        env |= {"REDIS_URL": redis_url, "REDIS_KEY_PREFIX": key_prefix}

    def pipeline(settings: Settings, reviewed: ReviewedAnswers) -> Pipeline:
        cache: AnswerCache = (
            MemoryCache()
            if redis_url is None
            else RedisCache.from_url(redis_url, key_prefix=key_prefix)
        )
        return Pipeline(
            index=index,
            generator=Generator(
                model or counting(), RetryPolicy(max_attempts=attempts, sleep=no_wait)
            ),
            cache=cache,
            min_score=threshold(index) if min_score is None else min_score,
            reviewed=reviewed,
        )

    async with compose(env, pipeline=pipeline, with_review=with_review) as served:
        yield Bot(served.url, served.http, served.handled)


def everything_posted(slack: FakeSlackApi) -> str:
    """Every argument of every call the app made to Slack, as one string to scan."""
    return "\n".join(json.dumps(call.args, ensure_ascii=False) for call in slack.calls)
