"""Fakes for the answer-cache tests: a computation that counts its calls, a clock to move."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from rag.problems import Problem
from rag.results import Answer, Refusal, Result, Unverified
from tests.rag.factories import policy_hits

QUESTION = "口语课一共有几级？"


def answer(text: str = "口语课共分四个级别 [2]。") -> Answer:
    return Answer(QUESTION, text, tuple(policy_hits()), timings_ms={"generate": 900.0})


def refusal() -> Refusal:
    return Refusal("雅思保过班多少钱？", "文档里没有这个问题的答案。", tuple(policy_hits()))


def unverified() -> Unverified:
    return Unverified(
        QUESTION,
        "六级 [1]。",
        (Problem("ungrounded_number", "六级 在来源里找不到"),),
        tuple(policy_hits()),
    )


@dataclass
class CountingCompute:
    """Stands in for retrieval + generation: returns ``result`` (or raises), counting calls."""

    result: Result | BaseException = field(default_factory=answer)
    delay: float = 0.0
    """Seconds each computation takes, so concurrent callers really overlap."""
    calls: int = 0

    async def __call__(self) -> Result:
        self.calls += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result
