"""The bot over a copy of ``docs/`` in either phase, with the bundled e5: ``full`` (every passage
embedded, as after the first start) or ``first`` (just started on a folder with no vector: the
backfill is held back for the whole test, so every question is weighed on its lexical
candidates, embedded on demand)."""

from __future__ import annotations

import shutil
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

import rag.serving.serve
from rag import serve_pipeline
from rag.reviewed.answers import ReviewedAnswers
from rag.search.embeddings import E5Embeddings
from rag.settings import Settings
from tests.scenarios.harness import DOCS, RunningBot, compose

PHASES = ("full", "first")


class HeldBackfill(E5Embeddings):
    """The bundled e5, except that the background build (its threads are named ``citebot-…``)
    waits until the test ends; a question's on-demand embedding goes through at once."""

    release = threading.Event()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if threading.current_thread().name.startswith("citebot-"):
            self.release.wait(120)
        return super().embed_documents(texts)


def docs_env(tmp_path: Path, phase: str, e5_env: dict[str, str], **extra: str) -> dict[str, str]:
    """A copy of docs/ and, in full mode, the session's e5 index of it (its vectors reused)."""
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    index = tmp_path / "index"
    if phase == "full":
        shutil.copytree(e5_env["INDEX_DIR"], index)
    return {"DOCS_DIR": str(docs), "INDEX_DIR": str(index), "EMBEDDINGS": "e5",
            "REFRESH_SECONDS": "0", **extra}  # fmt: skip


@asynccontextmanager
async def serving(
    variables: dict[str, str], phase: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[RunningBot]:
    """The app ``python -m bot`` composes, in ``phase`` (its index checked by /healthz)."""
    embeddings = HeldBackfill()
    HeldBackfill.release.clear()
    if phase == "first":  # docs/ is small enough to be embedded before the first answer
        monkeypatch.setattr(rag.serving.serve, "LEXICAL_FIRST_AT", 0)

    def pipeline(settings: Settings, reviewed: ReviewedAnswers) -> Any:
        return serve_pipeline(settings, redis=None, reviewed=reviewed, embeddings=embeddings)

    try:
        async with compose(variables, pipeline=pipeline) as served:
            bot = RunningBot(served.url, served.http, served.handled)
            async with bot.http.get(f"{served.url}/healthz") as response:
                mode = (await response.json())["index"]["mode"]
            assert mode == ("lexical" if phase == "first" else "full")
            yield bot
    finally:
        HeldBackfill.release.set()
