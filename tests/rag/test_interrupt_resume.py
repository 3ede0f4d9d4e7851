"""Ctrl-C and SIGTERM stop ``rag index`` and ``rag ask`` at once, without waiting for the batch
being embedded, say how many vectors were kept, print no traceback, and the next run embeds
only the rest.

The signal is real: the embedder sends it to this process (pytest runs tests in the main
thread, where Python delivers signals) during its second batch, as a person pressing Ctrl-C
while ``rag index`` embeds, and that batch then hangs as a slow one on a busy machine does
(until the test ends): the command must stop without it, deterministically."""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rag.cli import ask as ask_cli
from rag.cli import index as index_cli
from rag.search import folder_read
from rag.search.embedding_run import BATCH
from rag.search.embeddings import HashingEmbeddings
from rag.search.on_demand import CANDIDATES
from rag.serving import opening
from rag.serving.background import BackgroundBuilds
from rag.settings import Settings

DOCS = Path(__file__).resolve().parents[2] / "docs"


HUNG = threading.Event()
"""Released when a test ends: the batch a stop left behind may then finish (nobody uses it)."""


class Interrupting(HashingEmbeddings):
    """Counts the vectors it returns; during its second batch it sends ``sig`` to this process
    and hangs until the test ends."""

    def __init__(self, sig: signal.Signals | None = None) -> None:
        super().__init__()
        self.sig, self.embedded, self.batches = sig, 0, 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.batches += 1
        if self.sig is not None and self.batches == 2:
            os.kill(os.getpid(), self.sig)
            HUNG.wait(60)
        vectors = super().embed_documents(texts)
        self.embedded += len(texts)
        return vectors


STOPPING: list[threading.Event] = []
"""The stop event of the command's build, so a test can wait for a signal to have landed."""


class Builds(BackgroundBuilds):
    def __init__(self) -> None:
        super().__init__()
        STOPPING.append(self.stopping)


@pytest.fixture(autouse=True)
def remembered_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_cli, "BackgroundBuilds", Builds)


@pytest.fixture(autouse=True)
def hung_batches_released() -> Iterator[None]:
    HUNG.clear()
    yield
    HUNG.set()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    shutil.copytree(DOCS, tmp_path / "docs")
    env = {"DOCS_DIR": str(tmp_path / "docs"), "INDEX_DIR": str(tmp_path / "index")}
    return Settings.from_env(env)


def rag_index(settings: Settings, embedder: HashingEmbeddings) -> int:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(index_cli, "embeddings_from_settings", lambda _: embedder)
        return index_cli.run(argparse.Namespace(docs=None), settings)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_rag_index_stopped_by_a_signal_keeps_its_vectors_and_the_next_run_resumes(
    settings: Settings, sig: signal.Signals, capsys: pytest.CaptureFixture[str]
) -> None:
    stopped = Interrupting(sig)
    assert rag_index(settings, stopped) == 130
    err = capsys.readouterr().err
    assert stopped.embedded == BATCH  # the first batch; the second was not waited for
    passages = err.split("kept ")[1].split(" of ")[1].split(" vectors")[0]
    assert f"citebot: stopped: kept {BATCH} of {passages} vectors; run it again to resume" in err
    assert f"citebot: {sig.name}: stopping, keeping what was embedded" in err
    assert "Traceback" not in err

    resumed = Interrupting()
    assert rag_index(settings, resumed) == 0
    assert resumed.embedded == int(passages) - BATCH  # only the rest
    assert "0 embedded" not in capsys.readouterr().out


def test_rag_ask_with_vectors_missing_answers_lexically_at_once_and_says_so(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(opening, "LEXICAL_FIRST_AT", 10)  # docs/ would be embedded first
    embedder = Interrupting()
    monkeypatch.setattr(opening, "embeddings_from_settings", lambda _: embedder)
    args = argparse.Namespace(question="年假有几天？", json=False, questions=None, scope=None)
    assert ask_cli.run(args, settings) == 0
    out, err = capsys.readouterr()
    # Only the question's lexical candidates were embedded, not the folder.
    assert 0 < embedder.embedded <= CANDIDATES
    assert "[1]" in out
    assert "passages have no vector yet, so this answer weighed only the question's" in err
    assert "`python -m rag index` embeds them all" in err


def test_rag_ask_embedding_a_few_passages_stops_on_ctrl_c_without_a_traceback(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(opening, "LEXICAL_FIRST_AT", 10_000)  # embed first, as for a few
    embedder = Interrupting(signal.SIGINT)
    monkeypatch.setattr(opening, "embeddings_from_settings", lambda _: embedder)
    args = argparse.Namespace(question="年假有几天？", json=False, questions=None, scope=None)
    assert ask_cli.run(args, settings) == 130
    err = capsys.readouterr().err
    assert f"stopped before answering: kept {BATCH} of " in err
    assert "ask again to resume" in err
    assert "Traceback" not in err


def test_rag_ask_on_a_missing_folder_says_what_to_set_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings.from_env(
        {"DOCS_DIR": str(tmp_path / "nowhere"), "INDEX_DIR": str(tmp_path / "index")}
    )
    args = argparse.Namespace(question="年假有几天？", json=False, questions=None, scope=None)
    assert ask_cli.run(args, settings) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        f"citebot: DOCS_DIR {tmp_path / 'nowhere'} does not exist; "
        "set DOCS_DIR to the folder holding your documents"
    ]


def test_rag_index_stopped_while_reading_a_new_folder_stops_at_the_next_file(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Reading and counting a folder of 1,200 pages takes seconds before the first batch: a
    stop asked for meanwhile is taken there, not after."""
    real = folder_read.loaders.load_path
    read: list[object] = []

    def load_path(*args: Any) -> Any:
        read.append(args[0])
        if len(read) == 2:
            os.kill(os.getpid(), signal.SIGINT)
            assert STOPPING[-1].wait(10)
        return real(*args)

    monkeypatch.setattr(folder_read.loaders, "load_path", load_path)
    embedder = Interrupting()

    assert rag_index(settings, embedder) == 130

    err = capsys.readouterr().err
    assert len(read) == 2  # the third file is never read
    assert embedder.embedded == 0
    assert "citebot: stopped: the folder was still being read, nothing was embedded" in err
    assert "Traceback" not in err
