"""One question in Slack: placeholder, then the result in its place, whatever fails.

The platform-neutral core (bot/answering.py) driving the Slack thread (bot/slack/thread.py)."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.answering import Answering
from bot.ports import Origin
from bot.review.records import Ticket
from bot.slack.client import RateLimitRetry, web_client
from bot.slack.incoming import Incoming
from bot.slack.listeners.questions import answer_in_slack
from bot.texts import UNVERIFIED, WORKING
from rag import Language, Progress
from rag.chunks import Chunk
from rag.messages import model_failure_text, refusal_text
from rag.problems import Problem
from rag.results import Answer, Hit, Refusal, Result, Unverified
from tests.fakes.slack_api import BOT_TOKEN, FakeSlackApi

HIT = Hit(Chunk(source="refund.md", text="退费按剩余课时计算。", n=0, heading=("退费",)), 0.9)
ASKED = Incoming(
    event_id="Ev1",
    channel="C1",
    ts="1.0001",
    user="U1",
    channel_type="channel",
    text="<@U0BOT> 退费怎么算？",
    reply_thread="1.0001",
)


class _Index:
    version = "v1"
    chunks: tuple[Chunk, ...] = (HIT.chunk,)

    def __len__(self) -> int:
        return 1

    def chunk(self, chunk_id: str) -> Chunk | None:
        return HIT.chunk if chunk_id == HIT.chunk.id else None


class _Answerer:
    index = _Index()

    def __init__(self, result: Result | Exception) -> None:
        self.result = result
        self.questions: list[str] = []

    async def answer(
        self,
        question: str,
        *,
        scope: str = "all",
        progress: Progress | None = None,
        language: Language | None = None,
    ) -> Result:
        self.questions.append(question)
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


class _Review:
    def __init__(self, fail: bool = False) -> None:
        self.submitted: list[tuple[Unverified, Origin]] = []
        self.fail = fail

    async def submit_unverified(self, result: Unverified, origin: Origin) -> None:
        if self.fail:
            raise RuntimeError("review channel unreachable")
        self.submitted.append((result, origin))

    def ask_human_ticket(self, result: Refusal, origin: Origin) -> Ticket:
        return Ticket("ask", "gap", origin.channel, origin.thread_ts, origin.user)


async def respond(
    answerer: _Answerer, client: AsyncWebClient, review: _Review | None = None, **options: Any
) -> None:
    await answer_in_slack(Answering(answerer, review=review, **options), client, ASKED, "all")


def _client(slack: FakeSlackApi) -> AsyncWebClient:
    async def no_wait(seconds: float) -> None:
        return None

    return web_client(
        BOT_TOKEN, base_url=slack.url, rate_limit=RateLimitRetry(sleep=no_wait, jitter=0)
    )


async def test_answer_replaces_the_placeholder_and_the_question_is_cleaned(
    slack_api: FakeSlackApi,
) -> None:
    slack_api.without_status()  # the placeholder path, as without thread statuses
    answerer = _Answerer(Answer("退费怎么算？", "退费按剩余课时计算[1]。", (HIT,)))
    await respond(answerer, _client(slack_api))
    [reply] = slack_api.messages
    assert answerer.questions == ["退费怎么算？"]
    assert slack_api.calls_to("chat.postMessage")[0].args["text"] == WORKING["zh"]
    assert (reply.text, reply.edits) == ("退费按剩余课时计算[1]。", 1)


async def test_unverified_goes_to_review_and_the_asker_gets_the_honest_note(
    slack_api: FakeSlackApi,
) -> None:
    draft = Unverified(
        "退费怎么算？", "口语课一共六级[1]。", (Problem("ungrounded_number", "ungrounded"),), (HIT,)
    )
    review = _Review()
    await respond(_Answerer(draft), _client(slack_api), review)
    [reply] = slack_api.messages
    assert reply.text == UNVERIFIED["zh"]
    assert "六级" not in str(reply.blocks)
    [(result, origin)] = review.submitted
    assert result is draft
    assert (origin.channel, origin.thread_ts, origin.user) == ("C1", "1.0001", "U1")
    assert origin.question == "退费怎么算？"


async def test_unverified_without_a_review_desk_is_refused_not_shown(
    slack_api: FakeSlackApi,
) -> None:
    draft = Unverified(
        "退费怎么算？", "口语课一共六级[1]。", (Problem("ungrounded_number", "ungrounded"),), (HIT,)
    )
    await respond(_Answerer(draft), _client(slack_api))
    assert slack_api.messages[0].text == refusal_text("zh")


async def test_failed_review_submission_tells_the_asker_something_went_wrong(
    slack_api: FakeSlackApi,
) -> None:
    draft = Unverified("q", "d[1]", (Problem("no_citation", "x"),), (HIT,))
    await respond(_Answerer(draft), _client(slack_api), _Review(fail=True))
    assert slack_api.messages[0].text == model_failure_text("zh")


async def test_refusal_carries_the_review_desks_button(slack_api: FakeSlackApi) -> None:
    refusal = Refusal("火星", refusal_text("zh"), ())
    await respond(_Answerer(refusal), _client(slack_api), _Review())
    [reply] = slack_api.messages
    assert reply.text == refusal_text("zh")
    assert '"ask_human"' in json.dumps(reply.blocks)


@pytest.mark.parametrize("error", [RuntimeError("bug"), ValueError("bad")])
async def test_any_pipeline_failure_ends_in_one_human_sentence(
    slack_api: FakeSlackApi, error: Exception
) -> None:
    await respond(_Answerer(error), _client(slack_api))
    [reply] = slack_api.messages
    assert reply.text == model_failure_text("zh")


async def test_a_deleted_placeholder_still_gets_the_answer_posted(
    slack_api: FakeSlackApi,
) -> None:
    slack_api.without_status()  # the placeholder path, as without thread statuses
    slack_api.fail("chat.update", "message_not_found")
    answerer = _Answerer(Answer("q", "退费按剩余课时计算[1]。", (HIT,)))
    await respond(answerer, _client(slack_api))
    assert [m.text for m in slack_api.messages] == [WORKING["zh"], "退费按剩余课时计算[1]。"]


async def test_a_placeholder_slack_would_not_edit_is_replaced_by_the_answer(
    slack_api: FakeSlackApi,
) -> None:
    slack_api.fail("chat.update", "cant_update_message")
    answerer = _Answerer(Answer("q", "退费按剩余课时计算[1]。", (HIT,)))
    await respond(answerer, _client(slack_api))
    assert [m.text for m in slack_api.messages] == ["退费按剩余课时计算[1]。"]


async def test_slack_refusing_the_placeholder_is_logged_and_survived(
    slack_api: FakeSlackApi, caplog: pytest.LogCaptureFixture
) -> None:
    slack_api.without_status()  # the placeholder path, as without thread statuses
    slack_api.fail("chat.postMessage", "not_in_channel")
    answerer = _Answerer(Answer("q", "a[1]", (HIT,)))
    with caplog.at_level(logging.INFO):
        await respond(answerer, _client(slack_api))
    assert slack_api.messages == []
    assert answerer.questions == []
    assert any("not_in_channel" in record.getMessage() for record in caplog.records)


async def test_one_log_line_per_question_without_its_text(
    slack_api: FakeSlackApi, caplog: pytest.LogCaptureFixture
) -> None:
    answerer = _Answerer(Answer("q", "退费按剩余课时计算[1]。", (HIT,)))
    with caplog.at_level(logging.INFO, logger="citebot.questions"):
        await respond(answerer, _client(slack_api))
    [line] = [r.getMessage() for r in caplog.records if r.name == "citebot.questions"]
    data = json.loads(line)
    assert (data["event_id"], data["verdict"], data["top_scores"]) == ("Ev1", "answer", [0.9])
    assert {"placeholder", "answer", "deliver", "total"} <= set(data["timings_ms"])
    assert "退费" not in line


async def test_log_questions_puts_the_text_in_the_line(
    slack_api: FakeSlackApi, caplog: pytest.LogCaptureFixture
) -> None:
    answerer = _Answerer(Refusal("q", refusal_text("zh"), ()))
    with caplog.at_level(logging.INFO, logger="citebot.questions"):
        await respond(answerer, _client(slack_api), log_questions=True)
    [line] = [r.getMessage() for r in caplog.records if r.name == "citebot.questions"]
    assert json.loads(line)["question"] == "退费怎么算？"


class _GatedSlack:
    """Holds every chat.postMessage until released, counting how many are in flight."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.peak = 0
        self.updates = 0
        self.release = asyncio.Event()

    async def chat_postMessage(self, **kwargs: Any) -> dict[str, Any]:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await self.release.wait()
        self.in_flight -= 1
        return {"ts": "2.0001"}

    async def chat_update(self, **kwargs: Any) -> dict[str, Any]:
        self.updates += 1
        return {"ts": kwargs["ts"]}

    async def assistant_threads_setStatus(self, **kwargs: Any) -> dict[str, Any]:
        """A workspace without thread statuses: the placeholder path."""
        raise SlackApiError("refused", {"ok": False, "error": "missing_scope"})


async def test_a_burst_posts_a_bounded_number_of_placeholders_at_once() -> None:
    answerer = _Answerer(Answer("退费怎么算？", "退费按剩余课时计算[1]。", (HIT,)))
    answering = Answering(answerer, max_placeholder_posts=3)
    slack = _GatedSlack()
    client: Any = slack
    burst = [
        asyncio.create_task(answer_in_slack(answering, client, ASKED, "all")) for _ in range(20)
    ]
    for _ in range(10):  # let every task run up to its placeholder post
        await asyncio.sleep(0)
    assert slack.peak == 3
    slack.release.set()
    await asyncio.gather(*burst)
    assert slack.updates == 20, "every question is still answered"
