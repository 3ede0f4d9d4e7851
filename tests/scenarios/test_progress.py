"""The thread's status follows the answer over signed HTTP: 正在查找资料… while retrieving,
正在起草回答… while the chat model writes, in the asker's language, cleared with the reply.

The chat model is held until the test has seen the drafting status, so what is asserted is
what an asker would see while waiting, not a race."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import ConfigDict

from bot.texts import STATUS
from rag import Language
from rag.generate.extractive import ExtractiveChatModel
from rag.search.index import Index
from tests.fakes.slack_api import FakeSlackApi
from tests.scenarios.harness import (
    CHANNEL,
    IN_KB,
    IN_KB_EN,
    envelope,
    mention,
    start_bot,
)


class HeldChatModel(BaseChatModel):
    """The offline answerer, but each reply waits until the test releases it."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    released: asyncio.Event
    inner: BaseChatModel = ExtractiveChatModel()

    @property
    def _llm_type(self) -> str:
        return "held-test-model"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        raise AssertionError("the pipeline calls the chat model asynchronously")

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        await self.released.wait()
        return await self.inner._agenerate(messages, stop=stop, **kwargs)


@pytest.mark.parametrize(("question", "language"), [(IN_KB, "zh"), (IN_KB_EN, "en")])
async def test_the_status_follows_the_stages_in_the_askers_language(
    slack_api: FakeSlackApi, docs_index: Index, question: str, language: Language
) -> None:
    words = STATUS[language]
    model = HeldChatModel(released=asyncio.Event())
    asked = mention(question)
    async with start_bot(slack_api, index=docs_index, model=model) as bot:
        assert (await bot.send(envelope(asked))).status == 200
        drafting = [words["retrieving"], words["generating"]]
        await slack_api.wait_until(lambda: [s["status"] for s in slack_api.statuses] == drafting)
        model.released.set()
        await bot.idle()
    statuses = [s["status"] for s in slack_api.statuses]
    assert statuses[:2] == drafting
    assert statuses[2:] in ([words["checking"], ""], [""]), "checking at most, then cleared"
    assert all(s["thread_ts"] == asked["ts"] for s in slack_api.statuses)
    assert len(slack_api.thread(CHANNEL, asked["ts"])) == 1, "the reply"
