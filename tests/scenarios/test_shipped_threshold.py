"""The shipped refusal threshold, with the real embedder, on the sample docs/.

Every other scenario gates between its own sample questions with test-speed embeddings; here the
app is composed from the environment alone, exactly as ``python -m bot`` runs it
(``EMBEDDINGS=e5``, no ``MIN_SCORE``, extractive chat model): no test pipeline, no threshold of
the test's choosing. A documented question must be answered and an undocumented one refused.
"""

from __future__ import annotations

import re

from rag.messages import refusal_text
from tests.fakes.slack_api import FakeSlackApi
from tests.scenarios.harness import CHANNEL, RunningBot, bot_env, compose, envelope, mention

DOCUMENTED = "口语课一共有几级？"
"""docs/courses: 入门级、进阶级、流利级、商务级."""
UNDOCUMENTED = "你们的雅思保过班多少钱？"
"""Close to the documents' words (courses, fees), but no document offers an IELTS class."""


async def test_the_shipped_threshold_answers_a_documented_question_and_refuses_another(
    slack_api: FakeSlackApi, e5_env: dict[str, str]
) -> None:
    documented, undocumented = mention(DOCUMENTED), mention(UNDOCUMENTED)
    async with compose(bot_env(slack_api, **e5_env)) as served:
        bot = RunningBot(served.url, served.http, served.handled)
        for event in (documented, undocumented):
            assert (await bot.send(envelope(event))).status == 200
        await bot.idle()
    [answer] = slack_api.thread(CHANNEL, documented["ts"])
    assert "四个级别" in answer.text
    assert re.search(r"\[\d+\]", answer.text)
    [refusal] = slack_api.thread(CHANNEL, undocumented["ts"])
    assert refusal.text == refusal_text("zh")
