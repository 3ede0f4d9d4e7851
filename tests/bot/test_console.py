"""The console chat works with piped questions: one answer per line, then exits at EOF."""

from __future__ import annotations

import io
import logging

import pytest

from bot import texts
from bot.console import banner, chat
from bot.courtesy import courtesy_reply
from rag import MAX_QUESTION_CHARS, Language
from rag.chunks import Chunk
from rag.messages import model_failure_text, refusal_text
from rag.problems import Problem
from rag.progress import Progress
from rag.results import Answer, Hit, Refusal, Result, Unverified

REFUND = Chunk(source="refund.md", text="退费按课时。", n=0, heading=("退费",), title="退费制度")


class _Index:
    version = "v"
    chunks: tuple[Chunk, ...] = ()

    def __len__(self) -> int:
        return 0

    def chunk(self, chunk_id: str) -> Chunk | None:
        return None


class _Answerer:
    index = _Index()

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def answer(
        self,
        question: str,
        *,
        scope: str = "all",
        progress: Progress | None = None,
        language: Language | None = None,
    ) -> Result:
        self.asked.append(question)
        if "boom" in question or "爆炸" in question:
            msg = "a bug in the pipeline"
            raise RuntimeError(msg)
        if "转班" in question:
            problem = Problem("unsupported_claim", "第 1 句没有出处支持")
            return Unverified(question, "转班免费[1]。", (problem,), (Hit(REFUND, 0.5),))
        if "退费" in question:
            return Answer(question, "退费按课时[1]。", (Hit(REFUND, 0.9),))
        return Refusal(question, refusal_text("zh"), ())


async def test_piped_questions_get_answers_and_eof_ends_the_chat() -> None:
    answerer = _Answerer()
    out = io.StringIO()
    code = await chat(answerer, io.StringIO("退费怎么算\n\n火星天气\n"), out, greeting="hello")
    lines = out.getvalue()
    assert code == 0
    assert answerer.asked == ["退费怎么算", "火星天气"]
    assert lines.startswith("hello\n")
    # each piped question is echoed before its answer: which answer is which stays clear
    assert "> 退费怎么算\n退费按课时[1]。\n  [1] 退费制度 — refund.md › 退费 (相关度 " in lines
    assert f"> 火星天气\n{refusal_text('zh')}" in lines
    assert "> \n" not in lines  # the empty line is skipped, not echoed


async def test_a_terminal_gets_a_prompt_and_no_echo() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = io.StringIO()
    await chat(_Answerer(), Terminal("退费怎么算\n"), out, greeting="hello")
    assert out.getvalue().splitlines()[1] == "> 退费按课时[1]。"  # the prompt, then the answer
    assert "> 退费怎么算" not in out.getvalue()  # the terminal shows what was typed


def test_banner_says_there_is_no_slack_token() -> None:
    text = banner(docs_dir="docs", chunks=46, chat_model="extractive")
    first, second = text.splitlines()
    assert first.startswith("No SLACK_BOT_TOKEN: local console chat over docs/")
    assert first.endswith("Ctrl-D to quit")
    assert second.startswith("Questions asked here are not recorded for `python -m rag report`")


async def test_an_exploding_pipeline_prints_the_human_sentence_and_the_chat_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    answerer = _Answerer()
    out = io.StringIO()
    piped = io.StringIO("爆炸了怎么办\nwhat if it goes boom?\n退费怎么算\n")
    with caplog.at_level(logging.ERROR):
        code = await chat(answerer, piped, out, greeting="hello")
    assert code == 0
    assert answerer.asked == ["爆炸了怎么办", "what if it goes boom?", "退费怎么算"]
    # In the asker's language, each in its turn, and the next question is still answered.
    assert out.getvalue().splitlines()[1:7] == [
        "> 爆炸了怎么办",
        model_failure_text("zh"),
        "> what if it goes boom?",
        model_failure_text("en"),
        "> 退费怎么算",
        "退费按课时[1]。",
    ]
    assert "Traceback" not in out.getvalue()
    assert "a bug" not in out.getvalue()
    logged = [r for r in caplog.records if r.exc_info]
    assert [str(r.exc_info[1]) for r in logged if r.exc_info] == ["a bug in the pipeline"] * 2


async def test_an_unverified_draft_is_shown_to_the_operator_under_the_honest_note() -> None:
    out = io.StringIO()
    await chat(_Answerer(), io.StringIO("转班要钱吗\n"), out, greeting="hello")
    assert out.getvalue().splitlines()[1:] == [
        "> 转班要钱吗",
        texts.UNVERIFIED_CONSOLE["zh"],
        "  [unverified draft, not shown to Slack users]",
        "  转班免费[1]。",
        "  - 第 1 句没有出处支持",
    ]


async def test_the_console_promises_no_reply_that_cannot_come() -> None:
    """Told "稍后在这里回复你", an operator waited for a reply no reviewer could ever send to a
    terminal: the console says what happens to the draft instead."""
    out = io.StringIO()
    await chat(_Answerer(), io.StringIO("转班要钱吗\n"), out, greeting="hello")
    assert "稍后在这里回复你" not in out.getvalue()
    assert "控制台没有复核，这里也不会再有回复" in out.getvalue()


async def test_a_long_question_is_cut_and_the_asker_told_above_the_answer() -> None:
    answerer = _Answerer()
    out = io.StringIO()
    await chat(answerer, io.StringIO("退费" * MAX_QUESTION_CHARS + "\n"), out, greeting="hello")
    assert [len(question) for question in answerer.asked] == [MAX_QUESTION_CHARS]
    notice, answer = out.getvalue().splitlines()[2:4]
    assert notice == texts.QUESTION_CUT["zh"].format(limit=MAX_QUESTION_CHARS)
    assert answer == "退费按课时[1]。"


async def test_the_session_is_one_conversation_follow_ups_read_with_the_last_question() -> None:
    """As in a Slack thread: "那转班呢？" asks the last question about 转班; thanks after an
    answer are no question (the console, like a DM, says "you're welcome")."""
    answerer = _Answerer()
    out = io.StringIO()
    await chat(answerer, io.StringIO("退费怎么算？\n谢谢\n那转班呢？\n"), out, greeting="hello")
    assert answerer.asked == ["退费怎么算？", "转班怎么算？"]
    printed = out.getvalue().splitlines()
    assert printed[0] == "hello"
    assert "退费按课时[1]。" in printed
    assert printed[printed.index("> 谢谢") + 1] == courtesy_reply("thanks", "zh")
    assert "\n\n" not in out.getvalue()


async def test_greetings_get_a_courteous_line_not_the_refusal() -> None:
    answerer = _Answerer()
    out = io.StringIO()
    await chat(answerer, io.StringIO("你好\nhello\n"), out, greeting="banner")
    assert answerer.asked == []
    assert out.getvalue().splitlines()[1:] == [
        "> 你好",
        courtesy_reply("greeting", "zh"),
        "> hello",
        courtesy_reply("greeting", "en"),
    ]
