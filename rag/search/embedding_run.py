"""The vectors of an index's chunks: cached ones stacked at once, the missing ones embedded in
batches, progress reported after each, and a stop (Ctrl-C, SIGTERM, a bot shutting down: the
embedder raises :class:`BuildStopped`, :class:`rag.serving.background.Watched` without waiting
for the batch under way) taken with what was embedded kept for the next run (saved every
minute too, so a run killed outright loses at most a minute).

A batch is :data:`BATCH` passages: the bundled e5 embeds about 15 a second on 2 cores busy with
other work (load 5-7; 40-50 idle: :mod:`rag.search.e5_runtime`), so little is lost with the
batch a stop drops.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from rag.chunks import Chunk
from rag.errors import CitebotError
from rag.search.dense import Matrix, normalised
from rag.search.embeddings import CachedEmbeddings
from rag.search.on_demand import background_rows

BATCH = 8
"""Passages per embedder call; also how often a stop is looked at."""
SAVE_SECONDS = 60.0
"""How often the vectors embedded so far are saved while a run goes on: a run killed outright
(a second Ctrl-C, ``kill -9``, a reboot) loses at most this much embedding."""

OnProgress = Callable[[int, int], None]
"""Called with (embedded so far, to embed in all) before the first batch and after each."""


class BuildStopped(CitebotError):
    """The build gave up at a batch boundary; ``kept`` of the index's ``total`` vectors are
    stored, so the next run embeds only the rest."""

    def __init__(self, kept: int = 0, total: int = 0) -> None:
        super().__init__(f"stopped with {kept} of {total} vectors kept")
        self.kept = kept
        self.total = total


class _Progress:
    """How far a run is: its own batches and, as they come, the vectors a question's
    on-demand embedding handed to the cache (:meth:`CachedEmbeddings.adopt`) — its own batch
    may hang for a minute on a busy machine meanwhile."""

    def __init__(self, cached: CachedEmbeddings, total: int, told: OnProgress | None) -> None:
        self.cached, self.total, self.told = cached, total, told
        self.done = 0
        self.before = cached.adopted  # adopted earlier: already left out of ``total``
        if told is not None:
            cached.on_adopted = self.report

    def report(self) -> None:
        if self.told is not None:
            adopted = self.cached.adopted - self.before
            self.told(min(self.done + adopted, self.total), self.total)


def embed_chunks(
    chunks: Sequence[Chunk],
    cached: CachedEmbeddings,
    *,
    keys: Sequence[str] | None = None,
    on_progress: OnProgress | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Matrix:
    """The chunks' normalised vectors; the cache is saved (pruned to these chunks) when it
    changed, and also when the run stops or fails (then :class:`BuildStopped` says how far).
    ``keys``: the chunks' vector keys when known (stored with the manifest)."""
    keys = [chunk.vector_key for chunk in chunks] if keys is None else list(keys)
    wanted = list(dict.fromkeys(keys))
    have = cached.stored(wanted)
    todo = [key for key in wanted if key not in have]
    # The on-demand standing's background sample first: seconds into a backfill, questions of
    # the lexical phase are weighed against it (rag.search.on_demand).
    first = {keys[row] for row in background_rows(len(keys))}
    todo.sort(key=lambda key: key not in first)
    needed = set(todo)
    texts = {
        key: chunk.dense_text for key, chunk in zip(keys, chunks, strict=True) if key in needed
    }
    cached.reused += len(keys) - len(todo)  # as if each had been asked for: the summary's count
    progress = _Progress(cached, len(todo), on_progress)
    progress.report()
    saved = clock()
    try:
        for start in range(0, len(todo), BATCH):
            batch = todo[start : start + BATCH]
            cached.embed_documents([texts[key] for key in batch])
            progress.done += len(batch)
            progress.report()
            if clock() - saved >= SAVE_SECONDS:
                cached.save()
                saved = clock()
    except BaseException as error:
        # What was embedded is kept, so the next build embeds only the rest instead of
        # starting a long backfill over.
        if cached.embedded:
            cached.save()
        if isinstance(error, BuildStopped):
            kept = len(cached.stored(wanted))  # with what questions embedded meanwhile
            raise BuildStopped(kept, len(wanted)) from None
        raise
    finally:
        cached.on_adopted = None
    if cached.embedded or len(cached) != len(wanted):
        cached.save(keep=wanted)
    stored = cached.stored(keys)
    if not keys:
        return np.zeros((0, 0), np.float32)
    return normalised(np.stack([stored[key] for key in keys]))
