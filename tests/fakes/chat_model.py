"""A scripted chat model behind ``BaseChatModel`` that records what it was sent.

    model = ScriptedChatModel(replies=["口语课共分四个级别[1]。"])
    ...
    assert model.calls == 1 and "入门级" in model.prompts[0][1].text

Replies are used in order; the last one repeats once the script runs out, so a test that asks
the same thing several times needs only one. A reply may be an exception instance to raise.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field


def _default_replies() -> list[str | BaseException]:
    return ["[1]"]


class ScriptedChatModel(BaseChatModel):
    replies: list[str | BaseException] = Field(default_factory=lambda: _default_replies())
    prompts: list[list[BaseMessage]] = Field(default_factory=list)
    """Every message list the model was called with, in call order."""

    @property
    def calls(self) -> int:
        return len(self.prompts)

    @property
    def _llm_type(self) -> str:
        return "scripted-test-model"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.prompts.append(list(messages))
        reply = self.replies[min(len(self.prompts), len(self.replies)) - 1]
        if isinstance(reply, BaseException):
            raise reply
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=reply))])
