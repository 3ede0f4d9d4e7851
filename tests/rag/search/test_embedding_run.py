"""An embedding run saves what it embedded every minute, so one killed outright (a second
Ctrl-C, ``kill -9``) loses at most a minute of it."""

from __future__ import annotations

from pathlib import Path

from rag.chunks import Chunk
from rag.search.embedding_run import BATCH, SAVE_SECONDS, embed_chunks
from rag.search.embeddings import CachedEmbeddings, HashingEmbeddings


class Peeking(HashingEmbeddings):
    """Before each batch, reads what a new process would find saved."""

    def __init__(self, directory: Path) -> None:
        super().__init__()
        self.directory = directory
        self.saved: list[int] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.saved.append(len(CachedEmbeddings(HashingEmbeddings(), self.directory)))
        return super().embed_documents(texts)


def test_the_vectors_are_saved_every_minute_while_the_run_goes_on(tmp_path: Path) -> None:
    chunks = [Chunk(source="a.md", text=f"第 {n} 条规定。", n=n) for n in range(4 * BATCH)]
    embedder = Peeking(tmp_path)
    ticks = iter(range(0, 10_000, int(SAVE_SECONDS / 2)))  # half a minute a batch

    embed_chunks(chunks, CachedEmbeddings(embedder, tmp_path), clock=lambda: next(ticks))

    assert embedder.saved == [0, 0, 2 * BATCH, 2 * BATCH]
