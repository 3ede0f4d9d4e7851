"""The platform-neutral answering core, driven through a recording AskerThread (no Slack):
what a second platform's thread is asked to show, and when."""

from __future__ import annotations

import logging

import pytest

from bot.answering import Answering, cut
from bot.ports import Answered, Origin, Reply, Unreachable
from bot.review.records import Ticket
from bot.texts import HELP, QUESTION_CUT, UNVERIFIED
from rag import GenerationError, Language, Progress, Stage
from rag.chunks import Chunk
from rag.messages import model_failure_text, refusal_text
from rag.problems import Problem
from rag.results import Answer, Hit, Refusal, Result, Unverified

HIT = Hit(Chunk(source="refund.md", text="退费按剩余课时计算。", n=0), 0.9)
ORIGIN = Origin("chat1", "t1", "m1", "u1", "im", "退费怎么算？", "all")


class _Index:
    version = "v1"
    chunks: tuple[Chunk, ...] = (HIT.chunk,)

    def __len__(self) -> int:
        return 1

    def chunk(self, chunk_id: str) -> Chunk | None:
        return None


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


class _Thread:
    def __init__(self, *, unreachable: bool = False) -> None:
        self.shown: list[str] = []
        self.replies: list[Reply] = []
        self.unreachable = unreachable

    async def working(self, language: str) -> None:
        if self.unreachable:
            raise Unreachable("test:not_in_chat")
        self.shown.append("working")

    async def reply(self, reply: Reply) -> int:
        self.replies.append(reply)
        self.shown.append("reply")
        return 1

    async def failed(self, language: str) -> None:
        self.shown.append(f"failed:{language}")

    def reached(self, stage: Stage, language: Language) -> None:
        self.shown.append(f"{stage}:{language}")


class _Review:
    def __init__(self) -> None:
        self.submitted: list[tuple[Unverified, Origin]] = []

    async def submit_unverified(self, result: Unverified, origin: Origin) -> None:
        self.submitted.append((result, origin))

    def ask_human_ticket(self, result: Refusal, origin: Origin) -> Ticket:
        return Ticket("ask", "gap", origin.channel, origin.thread_ts, origin.user)


def test_cut_reports_whether_it_cut() -> None:
    assert cut("abc", 5) == ("abc", False)
    assert cut("a" * 10, 4) == ("aaaa", True)
    assert cut("  abc \n", 5) == ("abc", False)
    with pytest.raises(ValueError, match=r"limit \(0\)"):
        cut("a", 0)


async def test_an_answer_is_shown_after_the_progress_note() -> None:
    answer = Answer("退费怎么算？", "退费按剩余课时计算[1]。", (HIT,))
    thread = _Thread()
    await Answering(_Answerer(answer)).answer("e1", ORIGIN, thread)
    assert thread.shown == ["working", "reply"]
    # The feedback buttons under it will say who asked, where, and on which index.
    assert thread.replies == [Reply("zh", result=answer, answered=Answered("u1", "all", "v1"))]


async def test_an_empty_question_gets_help_without_asking_the_pipeline() -> None:
    answerer, thread = _Answerer(RuntimeError("not asked")), _Thread()
    await Answering(answerer).answer("e1", Origin("c", "t", "m", "u", "im", "  ", "all"), thread)
    assert answerer.questions == []
    assert [r.text for r in thread.replies] == [HELP]


async def test_a_long_question_is_cut_once_and_the_asker_told() -> None:
    answerer, thread = _Answerer(Refusal("q", refusal_text("zh"), ())), _Thread()
    long = Origin("c", "t", "m", "u", "im", "退" * 50, "all")
    await Answering(answerer, max_question_chars=10).answer("e1", long, thread)
    assert answerer.questions == ["退" * 10]
    assert thread.replies[0].notice == QUESTION_CUT["zh"].format(limit=10)


async def test_a_refusal_offers_a_human_when_a_review_desk_runs() -> None:
    refusal = Refusal("退费怎么算？", refusal_text("zh"), ())
    thread = _Thread()
    await Answering(_Answerer(refusal), review=_Review()).answer("e1", ORIGIN, thread)
    [reply] = thread.replies
    assert reply.result is refusal
    assert reply.ask_human is not None
    assert reply.ask_human.asker == "u1"


async def test_an_unverified_draft_goes_to_review_and_never_to_the_asker() -> None:
    draft = Unverified(
        "退费怎么算？", "口语课一共六级[1]。", (Problem("ungrounded_number", "ungrounded"),), (HIT,)
    )
    review, thread = _Review(), _Thread()
    await Answering(_Answerer(draft), review=review).answer("e1", ORIGIN, thread)
    assert [r.text for r in thread.replies] == [UNVERIFIED["zh"]]
    assert [result for result, _ in review.submitted] == [draft]
    assert "六级" not in repr(thread.replies)


async def test_without_a_review_desk_an_unverified_draft_is_refused() -> None:
    draft = Unverified("q", "d[1]", (Problem("no_citation", "x"),), (HIT,))
    thread = _Thread()
    await Answering(_Answerer(draft)).answer("e1", ORIGIN, thread)
    assert [r.text for r in thread.replies] == [refusal_text("zh")]


async def test_the_chat_model_being_down_is_answered_with_the_human_sentence() -> None:
    thread = _Thread()
    error = GenerationError("unreachable", retryable=True, attempts=3)
    await Answering(_Answerer(error)).answer("e1", ORIGIN, thread)
    assert [r.text for r in thread.replies] == [model_failure_text("zh")]


async def test_a_bug_is_logged_with_its_traceback_and_the_thread_told(
    caplog: pytest.LogCaptureFixture,
) -> None:
    thread = _Thread()
    with caplog.at_level(logging.ERROR):
        await Answering(_Answerer(RuntimeError("bug"))).answer("e1", ORIGIN, thread)
    assert thread.shown == ["working", "failed:zh"]
    assert any(r.exc_info and "bug" in str(r.exc_info[1]) for r in caplog.records)


async def test_an_unreachable_thread_is_logged_and_not_tried_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    answerer, thread = _Answerer(RuntimeError("not asked")), _Thread(unreachable=True)
    with caplog.at_level(logging.ERROR):
        await Answering(answerer).answer("e1", ORIGIN, thread)
    assert thread.shown == []
    assert answerer.questions == []
    assert any("test:not_in_chat" in r.getMessage() for r in caplog.records)
