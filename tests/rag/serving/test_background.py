"""A stopping build does not wait for the batch being embedded (at the lowest CPU priority on a
busy machine one took a minute), and that batch never holds the process at exit."""

from __future__ import annotations

import threading

from rag.search.embedding_run import BuildStopped
from rag.search.embeddings import HashingEmbeddings
from rag.search.priority import low_priority_thread
from rag.serving.background import Watched


class Stuck(HashingEmbeddings):
    """A batch that ends only when the test lets it."""

    def __init__(self) -> None:
        super().__init__()
        self.started, self.release = threading.Event(), threading.Event()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.started.set()
        self.release.wait(30)
        return super().embed_documents(texts)


def test_a_stop_is_taken_while_the_batch_is_still_being_embedded() -> None:
    inner, stopping = Stuck(), threading.Event()
    watched = Watched(inner, stopping=stopping)
    outcome: list[str] = []

    def batch() -> None:
        try:
            watched.embed_documents(["年假可以结转几天？"])
            outcome.append("embedded")
        except BuildStopped:
            outcome.append("stopped")

    build = threading.Thread(target=batch)
    build.start()
    try:
        assert inner.started.wait(10)
        stopping.set()
        build.join(10)
        assert outcome == ["stopped"]  # the batch is still stuck
    finally:
        inner.release.set()


def test_without_a_stop_the_batch_is_embedded_and_counted() -> None:
    inner, batches = Stuck(), []
    inner.release.set()
    watched = Watched(inner, on_batch=batches.append, stopping=threading.Event())

    assert watched.embed_documents(["a", "b"]) == inner.embed_documents(["a", "b"])
    assert batches == [2]


def test_low_priority_work_runs_on_a_daemon_thread_that_never_holds_the_exit() -> None:
    worker, release = low_priority_thread("citebot-test-low"), threading.Event()
    running = worker.submit(release.wait, 30)
    try:
        threads = [t for t in threading.enumerate() if t.name == "citebot-test-low"]
        assert len(threads) == 1
        assert threads[0].daemon
    finally:
        release.set()
    assert running.result(10) is True
