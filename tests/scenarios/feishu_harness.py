"""Drive the real bot like Feishu does: encrypted, signed events in, the fake Open API watching.

:func:`start_feishu` composes the app from an environment as ``python -m bot`` does
(:func:`tests.scenarios.harness.compose`, Feishu on and Slack off) on a free 127.0.0.1 port,
pointed at a :class:`~tests.fakes.feishu_api.FakeFeishuApi` through FEISHU_API_URL, over the
sample docs/ pipeline of the Slack scenarios, with the test's place in the suite's Redis for
dedupe, review state and reviewed answers. The Open
API client's waits are recorded instead of slept. :class:`FeishuBot` asks questions as people
would (a message stored in the fake, then its event posted) and clicks card buttons.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel

from bot.records import Background
from rag import answering_retry
from rag.search.index import Index
from tests.fakes.feishu_api import APP_ID, APP_SECRET, FakeFeishuApi, Message
from tests.fakes.feishu_events import ENCRYPT_KEY, VERIFICATION_TOKEN, Delivery, FeishuEvents
from tests.redis_area import RedisArea
from tests.scenarios.harness import compose, hashing_pipeline

GROUP = "oc_general0001"
DM = "oc_p2palice001"
REVIEW_CHAT = "oc_review00001"
ALICE = "ou_alice000001"
REVIEWER = "ou_reviewer001"
OUTSIDER = "ou_outsider001"


async def _no_wait(seconds: float) -> None:
    return None


@dataclass
class FeishuBot:
    feishu: FakeFeishuApi
    events: FeishuEvents
    waits: list[float] = field(default_factory=list)

    async def ask_group(self, text: str, *, mention_bot: bool = True) -> tuple[Message, Any]:
        """``@citebot text`` in the group: the stored message and its event (already posted)."""
        content = {"text": f"@_user_1 {text}" if mention_bot else text}
        message = self.feishu.user_message(GROUP, ALICE, content)
        mentions = [self.events.bot_mention()] if mention_bot else []
        event = self.events.message(message, mentions=mentions)
        await self.events.post(event)
        return message, event

    async def ask_p2p(self, text: str) -> tuple[Message, Any]:
        message = self.feishu.user_message(DM, ALICE, {"text": text})
        event = self.events.message(message, chat_type="p2p")
        await self.events.post(event)
        return message, event

    async def replies(self, question: Message, count: int = 1) -> list[Message]:
        """The bot's messages in the question's thread, once there are ``count`` of them and
        none is still the progress card."""

        def ready() -> bool:
            thread = self.feishu.thread(question.message_id)
            return len(thread) >= count and not any(_working(m) for m in thread)

        await self.feishu.wait_until(ready)
        return self.feishu.thread(question.message_id)

    async def click(
        self, message: Message, value: dict[str, Any], *, user: str, form: Any = None
    ) -> Delivery:
        payload = self.events.card_action(
            operator=user,
            message_id=message.message_id,
            chat_id=message.chat_id,
            value=value,
            form_value=form,
        )
        return await self.events.post(payload)


def _working(message: Message) -> bool:
    return any(t in message.text for t in ("正在查资料…", "Looking it up…"))


def buttons(message: Message) -> list[dict[str, Any]]:
    """Every button on a card, also those inside a form, in order."""
    found: list[dict[str, Any]] = []

    def walk(elements: list[dict[str, Any]]) -> None:
        for element in elements:
            if element.get("tag") == "button":
                found.append(element)
            walk(element.get("elements") or [])

    walk(message.content.get("body", {}).get("elements", []))
    return found


def value_of(button: dict[str, Any]) -> dict[str, Any]:
    return dict(button["behaviors"][0]["value"])


def feishu_env(feishu: FakeFeishuApi, **extra: str) -> dict[str, str]:
    """The environment ``python -m bot`` reads for Feishu alone, against the fake Open API."""
    return {
        "FEISHU_APP_ID": APP_ID,
        "FEISHU_APP_SECRET": APP_SECRET,
        "FEISHU_ENCRYPT_KEY": ENCRYPT_KEY,
        "FEISHU_VERIFICATION_TOKEN": VERIFICATION_TOKEN,
        "FEISHU_API_URL": feishu.url,
        **extra,
    }


@asynccontextmanager
async def start_feishu(
    feishu: FakeFeishuApi,
    *,
    index: Index,
    redis: RedisArea,
    model: BaseChatModel | None = None,
    min_score: float | None = None,
    review_chat: str | None = REVIEW_CHAT,
    reviewers: tuple[str, ...] = (),
    scopes: Path | None = None,
    mode: str = "http",
    records: Background | None = None,
) -> AsyncIterator[FeishuBot]:
    """The app composed from the environment as ``python -m bot`` does (Feishu on, Slack off),
    over ``redis`` — the test's place in the suite's Redis (its URL and key prefix)."""
    env = feishu_env(feishu, **redis.env, FEISHU_MODE=mode)
    if review_chat is not None:
        env["FEISHU_REVIEW_CHAT"] = review_chat
    if reviewers:
        env["FEISHU_REVIEWERS"] = ",".join(reviewers)
    if scopes is not None:
        env["SCOPES_FILE"] = str(scopes)
    waits: list[float] = []

    async def record(seconds: float) -> None:
        waits.append(seconds)

    pipeline = hashing_pipeline(index, model=model, min_score=min_score)
    async with compose(
        env, pipeline=pipeline, feishu_retry=answering_retry(sleep=record), records=records
    ) as served:
        yield FeishuBot(feishu, FeishuEvents(f"{served.url}/feishu/events"), waits)
