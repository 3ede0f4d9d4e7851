"""``python -m bot``'s console on a folder with no vectors starts as the bot does: it answers
from the lexical index at once, says so, embeds in the background with progress lines, and
switches to full mode; Ctrl-C ends it without waiting for the batch being embedded, saying
what was kept."""

from __future__ import annotations

import asyncio
import io
import os
import re
import signal
import threading
from pathlib import Path

import pytest

import rag.serving.serve
from bot.root.config import read_config
from bot.root.console import console_chat
from bot.root.services import Services
from rag import serve_pipeline
from rag.reviewed.answers import ReviewedAnswers
from rag.search.embedding_run import BATCH
from rag.search.embeddings import HashingEmbeddings
from tests.scenarios.test_freshness import folders

__all__ = ["folders"]  # the shared fixture

QUESTION = "流利级的课程费是多少？"


class Gated(HashingEmbeddings):
    """The backfill (its threads are named ``citebot-…``) embeds once the test opens the gate:
    the dense half takes "long"; a question's candidates are embedded at once, on demand."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.embedded = 0
        self.on_demand: set[str] = set()
        """Texts embedded while a question waited (its candidates, the answer's sentences)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not threading.current_thread().name.startswith("citebot-"):
            self.on_demand.update(texts)
            return super().embed_documents(texts)
        assert self.gate.wait(30), "the test never opened the gate"
        self.embedded += len(texts)
        return super().embed_documents(texts)


class Terminal:
    """The operator's side: what they type (a pipe the console reads) and what they see.
    Made in the test itself: pytest's output capture sets ``sys.stdin``/``stdout`` again
    after fixtures are set up."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        read, write = os.pipe()
        self.reading = os.fdopen(read, "r", encoding="utf-8")
        self.typing = os.fdopen(write, "w", encoding="utf-8")
        self.out, self.err = io.StringIO(), io.StringIO()
        monkeypatch.setattr("sys.stdin", self.reading)
        monkeypatch.setattr("sys.stdout", self.out)
        monkeypatch.setattr("sys.stderr", self.err)

    def type(self, line: str) -> None:
        self.typing.write(line + "\n")
        self.typing.flush()

    @property
    def seen(self) -> str:
        return self.out.getvalue() + self.err.getvalue()

    async def until(self, text: str) -> None:
        for _ in range(600):
            if text in self.seen:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"never printed {text!r}: {self.seen}")

    def close(self) -> None:
        for stream in (self.typing, self.reading):
            if not stream.closed:
                stream.close()


def started(folders: tuple[Path, Path], embeddings: Gated) -> tuple[Services, object]:
    """The console's services over a copy of docs/, started on its lexical index (docs/ is
    small enough to be embedded before the first answer: ``LEXICAL_FIRST_AT`` says so)."""
    docs, index = folders
    config = read_config({"DOCS_DIR": str(docs), "INDEX_DIR": str(index)})
    live = serve_pipeline(config.bot.rag, redis=None, embeddings=embeddings)
    services = Services(redis=None, reviewed=ReviewedAnswers.in_memory(), pipeline=live)
    return services, config


async def test_the_console_answers_at_once_embeds_behind_and_switches_to_full_mode(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rag.serving.serve, "LEXICAL_FIRST_AT", 0)
    terminal = Terminal(monkeypatch)
    embeddings = Gated()
    services, config = started(folders, embeddings)
    chat = asyncio.create_task(console_chat(config, services))  # type: ignore[arg-type]
    terminal.type(QUESTION)

    await terminal.until("4800")  # answered at once: only the question's candidates embedded
    assert embeddings.embedded == 0
    assert len(embeddings.on_demand) > 0
    assert "Lexical mode: answering now from the lexical index (46 passages)" in terminal.seen
    await terminal.until("embedding: 0 of 46 passages")  # progress, before any batch ends
    embeddings.gate.set()
    await terminal.until("Full mode: dense search on too")
    terminal.typing.close()  # Ctrl-D

    assert await asyncio.wait_for(chat, 30) == 0
    terminal.close()
    # The backfill took the question's candidates instead of embedding them again (but for
    # those in the batch it had under way when the question came).
    passages = {chunk.dense_text for chunk in services.pipeline.index.chunks}
    assert embeddings.embedded <= len(passages - embeddings.on_demand) + BATCH
    assert embeddings.embedded < len(passages)
    assert "kept" not in terminal.seen


class SlowSecondBatch(Gated):
    """The first batch at once; the second one hangs as a low-priority batch on a busy machine
    does (a minute), until the test opens the gate after the console has ended."""

    def __init__(self) -> None:
        super().__init__()
        self.second = threading.Event()
        self.batches = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not threading.current_thread().name.startswith("citebot-"):
            self.on_demand.update(texts)
            return HashingEmbeddings.embed_documents(self, texts)
        self.batches += 1
        if self.batches == 1:
            self.embedded += len(texts)
            return HashingEmbeddings.embed_documents(self, texts)
        self.second.set()
        return super().embed_documents(texts)


async def test_ctrl_c_ends_the_console_without_waiting_for_the_batch_saying_what_was_kept(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rag.serving.serve, "LEXICAL_FIRST_AT", 0)
    terminal = Terminal(monkeypatch)
    embeddings = SlowSecondBatch()
    services, config = started(folders, embeddings)
    chat = asyncio.create_task(console_chat(config, services))  # type: ignore[arg-type]
    terminal.type(QUESTION)
    await terminal.until("4800")
    assert await asyncio.to_thread(embeddings.second.wait, 30)  # the first batch is done

    os.kill(os.getpid(), signal.SIGINT)  # while the second batch is being embedded
    try:
        assert await asyncio.wait_for(chat, 30) == 130  # the gate is still shut
        assert embeddings.embedded == BATCH
    finally:
        embeddings.gate.set()  # the dropped batch may end now; nobody waits for it
    terminal.close()
    assert "citebot: SIGINT: stopping" in terminal.seen
    # The first batch and the question's candidates are kept.
    assert re.search(r"citebot: kept (\d+) of 46 vectors; start again to resume", terminal.seen)
    kept = int(re.findall(r"kept (\d+) of 46", terminal.seen)[-1])
    assert BATCH < kept < 46
    assert "Traceback" not in terminal.seen


async def test_a_console_started_in_full_mode_says_so_once(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/ is embedded before the first answer: "Full mode: …" was printed twice, by the
    greeting and again by the progress lines' "switched" line."""
    terminal = Terminal(monkeypatch)
    embeddings = Gated()
    embeddings.gate.set()
    services, config = started(folders, embeddings)
    chat = asyncio.create_task(console_chat(config, services))  # type: ignore[arg-type]
    terminal.type(QUESTION)
    await terminal.until("4800")
    terminal.typing.close()  # Ctrl-D
    assert await asyncio.wait_for(chat, 30) == 0
    terminal.close()
    assert terminal.err.getvalue().count("Full mode") == 1, terminal.err.getvalue()
    assert "Lexical mode" not in terminal.seen
