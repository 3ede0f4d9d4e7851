"""The console chat works with piped questions: one answer per line, then exits at EOF."""

from __future__ import annotations

import io

from bot.console import banner, chat
from rag.chunks import Chunk
from rag.messages import refusal_text
from rag.progress import Progress
from rag.results import Answer, Hit, Refusal, Result


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
        self, question: str, *, scope: str = "all", progress: Progress | None = None
    ) -> Result:
        self.asked.append(question)
        if "退费" in question:
            chunk = Chunk(
                source="refund.md", text="退费按课时。", n=0, heading=("退费",), title="退费制度"
            )
            return Answer(question, "退费按课时[1]。", (Hit(chunk, 0.9),))
        return Refusal(question, refusal_text("zh"), ())


async def test_piped_questions_get_answers_and_eof_ends_the_chat() -> None:
    answerer = _Answerer()
    out = io.StringIO()
    code = await chat(answerer, io.StringIO("退费怎么算\n\n火星天气\n"), out, greeting="hello")
    lines = out.getvalue()
    assert code == 0
    assert answerer.asked == ["退费怎么算", "火星天气"]
    assert lines.startswith("hello\n")
    assert "退费按课时[1]。\n  [1] 退费制度 — refund.md › 退费" in lines
    assert refusal_text("zh") in lines
    assert "> " not in lines


def test_banner_says_there_is_no_slack_token() -> None:
    text = banner(docs_dir="docs", chunks=46, chat_model="extractive")
    assert text.startswith("No SLACK_BOT_TOKEN: local console chat over docs/")
    assert text.endswith("Ctrl-D to quit")
