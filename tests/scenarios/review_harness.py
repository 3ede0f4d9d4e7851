"""The real app with its review desk over signed HTTP, for the review scenarios.

``ReviewBot`` composes the app from an environment as ``python -m bot`` does
(:func:`tests.scenarios.harness.compose`: review desk, dedupe and reviewed answers over the
suite's Redis, under the test's own key prefix), with a small index and a scripted chat model
as its pipeline, serves it on a free port, and sends Slack-shaped, signed requests: mentions,
button clicks built from the message the fake Slack API stores, modal submissions built from the
view it opened.
``restart()`` throws the app away and composes a new one over the same Redis and the same Slack,
as a deploy would.
"""

from __future__ import annotations

import itertools
import json
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from slack_sdk.signature import SignatureVerifier

from rag.cache.answers import MemoryCache
from rag.generate.llm import Generator
from rag.generate.retry import RetryPolicy
from rag.ingest.documents import SourceDocument
from rag.pipeline import Pipeline
from rag.reviewed.answers import ReviewedAnswers
from rag.search.build import index_documents
from rag.search.embeddings import HashingEmbeddings
from rag.search.index import Index
from rag.settings import Settings
from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.slack_api import BOT_USER_ID, TEAM_ID, FakeSlackApi, Message
from tests.redis_area import RedisArea
from tests.scenarios.harness import Served, bot_env, compose

SECRET = "review-scenario-signing-secret"
REVIEW_CHANNEL = "CREVIEW"
ASK_CHANNEL = "C0ASK"
ASKER = "UASKER"
REVIEWER, OTHER_REVIEWER, OUTSIDER = "UREVIEWER", "UREVIEWER2", "UOUTSIDER"

LEVELS = """# 课程体系

## 一、级别设置

口语课共分四个级别：入门级、进阶级、流利级、商务级。每个级别 16 课时，每课时 45 分钟。
"""
REFUND = """# 退费与转班制度

## 三、退费计算口径

退费金额 = 已付金额 × 剩余课时 ÷ 总课时 − 手续费。手续费为可退金额的 5%，最低 50 元。
"""
LEAVE = """# Annual leave

Full-time employees receive 20 days of paid annual leave per year.
"""
IN_KB = "口语课一共有几级？"
OUT_OF_KB = "公司的健身房几点开门？"
INVENTED = "口语课一共六级[1]，每级 12 课时[1]。"

_DOCS = [
    SourceDocument(source="courses/levels.md", text=LEVELS, title="课程体系"),
    SourceDocument(source="policies/refund.md", text=REFUND, title="退费与转班制度"),
    SourceDocument(source="hr/leave.md", text=LEAVE, title="Annual leave"),
]
INDEX = index_documents(_DOCS, embeddings=HashingEmbeddings())
THRESHOLD = (INDEX.search(IN_KB, 3)[0].score + INDEX.search(OUT_OF_KB, 3)[0].score) / 2

_ts = itertools.count(1)


async def _no_sleep(_: float) -> None:
    return None


@dataclass
class ReviewBot:
    slack: FakeSlackApi
    redis: RedisArea
    """The test's place in the suite's Redis: the app's keys go under its prefix."""
    model: ScriptedChatModel
    reviewers: frozenset[str] | None = frozenset({REVIEWER, OTHER_REVIEWER})
    index: Index = INDEX
    """The knowledge base answered from, with its ``threshold``."""
    threshold: float = THRESHOLD
    url: str = ""
    _served: Served | None = None
    _stack: AsyncExitStack = field(default_factory=AsyncExitStack)

    def env(self) -> dict[str, str]:
        env = bot_env(
            self.slack,
            SLACK_SIGNING_SECRET=SECRET,
            REVIEW_CHANNEL=REVIEW_CHANNEL,
            **self.redis.env,
        )
        if self.reviewers:
            env["REVIEWERS"] = ",".join(sorted(self.reviewers))
        return env

    def pipeline(self, settings: Settings, reviewed: ReviewedAnswers) -> Pipeline:
        return Pipeline(
            index=self.index,
            generator=Generator(self.model, RetryPolicy(max_attempts=1, sleep=_no_sleep)),
            cache=MemoryCache(),
            min_score=self.threshold,
            top_k=3,
            reviewed=reviewed,
        )

    async def start(self) -> None:
        self._stack = AsyncExitStack()
        self._served = await self._stack.enter_async_context(
            compose(self.env(), pipeline=self.pipeline)
        )
        self.url = f"{self._served.url}/slack/events"

    async def close(self) -> None:
        await self._stack.aclose()
        self._served = None

    async def restart(self) -> None:
        await self.close()
        await self.start()

    async def idle(self) -> None:
        """Once every request sent so far has been handled: nothing more will be sent."""
        assert self._served is not None
        await self._served.handled.idle()

    async def flush_redis(self) -> None:
        """Empty the app's keys in Redis, as if Redis had been replaced."""
        self.redis.clear()

    # -- requests as Slack sends them -------------------------------------------------------

    async def _send(self, body: str, content_type: str) -> tuple[int, str]:
        assert self._served is not None
        stamp = str(int(time.time()))
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": stamp,
            "X-Slack-Signature": SignatureVerifier(SECRET).generate_signature(
                timestamp=stamp, body=body
            )
            or "",
        }
        http = self._served.http
        async with http.post(self.url, data=body.encode(), headers=headers) as response:
            return response.status, await response.text()

    async def _interaction(self, payload: dict[str, Any]) -> tuple[int, str]:
        body = f"payload={quote(json.dumps(payload, ensure_ascii=False))}"
        return await self._send(body, "application/x-www-form-urlencoded")

    async def mention(self, question: str, *, user: str = ASKER) -> str:
        """An @-mention in ASK_CHANNEL; returns its ts (the asker's thread)."""
        ts = f"{1_700_000_000 + next(_ts)}.000100"
        event = {
            "type": "app_mention",
            "user": user,
            "text": f"<@{BOT_USER_ID}> {question}",
            "ts": ts,
            "channel": ASK_CHANNEL,
            "event_ts": ts,
        }
        envelope = {
            "token": "x",
            "team_id": TEAM_ID,
            "api_app_id": "A0CITEBOT",
            "type": "event_callback",
            "event_id": f"Ev{ts.replace('.', '')}",
            "event_time": int(time.time()),
            "event": event,
        }
        status, _ = await self._send(json.dumps(envelope), "application/json")
        assert status == 200
        return ts

    async def click(self, message: Message, action_id: str, *, user: str) -> int:
        """A button click on ``message`` as Slack sends it (the message as stored); the status."""
        action = next(
            {"type": "button", "block_id": block.get("block_id", ""), **element}
            for block in message.blocks
            if block.get("type") == "actions"
            for element in block["elements"]
            if element.get("action_id") == action_id
        )
        payload = {
            "type": "block_actions",
            "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID},
            "api_app_id": "A0CITEBOT",
            "token": "x",
            "trigger_id": self.slack.new_trigger_id(),
            "team": {"id": TEAM_ID, "domain": "citebot-test"},
            "container": {
                "type": "message",
                "message_ts": message.ts,
                "channel_id": message.channel,
                "is_ephemeral": False,
            },
            "channel": {"id": message.channel, "name": "x"},
            "message": {
                "type": "message",
                "ts": message.ts,
                "text": message.text,
                "blocks": message.blocks,
            },
            "response_url": "https://hooks.slack.invalid/actions/1",
            "actions": [{**action, "action_ts": str(time.time())}],
        }
        status, _ = await self._interaction(payload)
        return status

    async def submit(self, view: dict[str, Any], values: dict[str, Any], *, user: str) -> str:
        """A modal submission; returns the response body ("" or the modal's errors)."""
        payload = {
            "type": "view_submission",
            "user": {"id": user, "username": user.lower(), "team_id": TEAM_ID},
            "api_app_id": "A0CITEBOT",
            "token": "x",
            "trigger_id": self.slack.new_trigger_id(),
            "team": {"id": TEAM_ID, "domain": "citebot-test"},
            "view": {**view, "state": {"values": values}, "team_id": TEAM_ID},
        }
        status, text = await self._interaction(payload)
        assert status == 200
        return text

    async def home_opened(self, user: str) -> None:
        envelope = {
            "token": "x",
            "team_id": TEAM_ID,
            "api_app_id": "A0CITEBOT",
            "type": "event_callback",
            "event_id": f"EvHome{next(_ts)}",
            "event_time": int(time.time()),
            "event": {"type": "app_home_opened", "user": user, "channel": "D0HOME", "tab": "home"},
        }
        status, _ = await self._send(json.dumps(envelope), "application/json")
        assert status == 200


def text_input(value: str) -> dict[str, Any]:
    return {"value": {"type": "plain_text_input", "value": value}}


def everything(message: Message) -> str:
    return message.text + json.dumps(message.blocks, ensure_ascii=False)
