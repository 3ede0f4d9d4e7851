"""The answer core as a long-running process serves it: a live pipeline that follows DOCS_DIR.

:func:`serve_pipeline` builds the index (once, with the one embedder this process keeps for
every rebuild), the pipeline around it, wraps it in a :class:`~rag.serving.live.LivePipeline` whose
index can be swapped, and gives it a :class:`~rag.serving.refresh.Refresher` — coordinated
through Redis when there is one (build lock, version announcements, the passages' vectors:
:mod:`rag.serving.sharing`), else through INDEX_DIR. The edge runs ``live.follow()`` as a
background task while it serves; with SOURCES_FILE, the wikis are synced beside it every
SYNC_SECONDS (:mod:`rag.serving.syncing`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from langchain_core.embeddings import Embeddings

from rag.assemble import embeddings_from_settings, pipeline_around, vector_store_from_settings
from rag.observer import UNOBSERVED, Observer
from rag.reviewed.answers import ReviewedAnswers
from rag.scopes.sets import ScopeCatalog
from rag.search.build import load_or_build
from rag.search.handles import for_indexing
from rag.search.progress_line import ProgressLine
from rag.search.vectors import VectorStore, VectorStoreUnavailable
from rag.serving.background import BackgroundBuilds
from rag.serving.coordination import coordination
from rag.serving.holder import LEXICAL_FIRST_AT
from rag.serving.live import LivePipeline
from rag.serving.refresh import (
    Build,
    Built,
    Refresher,
    fingerprint_or_none,
    index_builder,
)
from rag.serving.sharing import Sharing
from rag.settings import Settings
from rag.storage.redis_guard import GuardedRedis

if TYPE_CHECKING:  # the sync's HTTP client (aiohttp) loads only when there is SOURCES_FILE
    from rag.http.retry import HttpRetry
    from rag.sync.sources_file import SourcesFile

FROM_SETTINGS = object()


@dataclass
class Backfill:
    """Counts the passages embedded while a lexical-first start computes its dense vectors."""

    live: LivePipeline | None = None
    active: bool = False

    def progress(self, done: int, total: int) -> None:
        if self.active and self.live is not None:
            self.live.holder.progress(done, total)


def serve_pipeline(
    settings: Settings,
    *,
    redis: GuardedRedis | None,
    reviewed: ReviewedAnswers | None = None,
    embeddings: Embeddings | object | None = FROM_SETTINGS,
    scopes: ScopeCatalog | None = None,
    full_index_first: bool = False,
    sources: SourcesFile | None = None,
    sync_retry: HttpRetry | None = None,
    progress: TextIO | None = None,
    observer: Observer = UNOBSERVED,
) -> LivePipeline:
    """``embeddings``: EMBEDDINGS' embedder unless given (a test counts what is embedded).
    ``full_index_first``: embed everything before returning (a caller that runs no follower,
    which would otherwise answer from the lexical index for good; the console runs one).
    ``sources``, ``sync_retry``: SOURCES_FILE and the sync's waits (:func:`_with_sync`).
    ``progress``: where the first build says how far it is (:func:`_first_build`).
    ``observer``: hears the chat model's calls and each sync (:mod:`rag.observer`)."""
    if embeddings is FROM_SETTINGS:
        embeddings = embeddings_from_settings(settings)
    assert embeddings is None or isinstance(embeddings, Embeddings)
    backfill, builds = Backfill(), BackgroundBuilds()
    beside = not full_index_first
    build, sharing, store = _builder(settings, embeddings, redis, backfill, builds, beside)
    known = fingerprint_or_none(settings.docs_dir)  # before the build: no change missed
    # With Redis sharing the vectors may be there already, but Redis is reached only once the
    # follower runs on the event loop: a small folder's backfill then reads them instead.
    embed_small = sharing is None
    first = (
        None
        if full_index_first
        else _first_build(settings, embeddings, build, progress, store, embed_small=embed_small)
    )
    built, missing, vectors = first or (build(), 0, 0)
    pipeline = pipeline_around(
        built.index, settings, redis=redis, reviewed=reviewed, scopes=scopes, observer=observer
    )
    live = LivePipeline(pipeline, mode=built.mode, fixed_min_score=settings.min_score)
    backfill.live = live
    live.holder.progress(0, missing, vectors=vectors)
    refresher = _refresher(live, build, settings, redis, known, builds)

    async def follow() -> None:
        if sharing is not None:
            sharing.bridge.attach()  # builds from now on reach Redis through this loop
            if live.holder.state.mode == "full":
                await sharing.share(live.pipeline.index)
        if live.holder.state.mode == "lexical":
            # Embed in the background (one process per corpus: the build lock; without it another
            # process is at it, and its announcement brings the full index here).
            backfill.active = True
            await refresher.refresh("backfill", exclusive=True)
            backfill.active = False
        await refresher.run()

    live.follower = _with_sync(live, follow, settings, refresher, sources, sync_retry, observer)
    live.builds = builds
    return live


def _refresher(
    live: LivePipeline,
    build: Build,
    settings: Settings,
    redis: GuardedRedis | None,
    known: str | None,
    builds: BackgroundBuilds,
) -> Refresher:
    """Refreshes coordinated through Redis when there is one, else through INDEX_DIR."""
    lock, announcers = coordination(settings.index_dir, redis)
    return Refresher(
        live,
        build,
        docs_dir=settings.docs_dir,
        refresh_seconds=settings.refresh_seconds,
        lock=lock,
        announcers=announcers,
        known=known,
        builds=builds,
    )


def _with_sync(
    live: LivePipeline,
    follow: Callable[[], Awaitable[None]],
    settings: Settings,
    refresher: Refresher,
    sources: SourcesFile | None,
    retry: HttpRetry | None,
    observer: Observer,
) -> Callable[[], Awaitable[None]]:
    """``follow``, with SOURCES_FILE synced beside it every SYNC_SECONDS (when there is one and
    SYNC_SECONDS is not 0); a sync that wrote files wakes the refresher."""
    if sources is None:
        return follow
    from rag.serving.syncing import Syncing

    syncing = Syncing(
        sources,
        docs_dir=settings.docs_dir,
        index_dir=settings.index_dir,
        every_seconds=settings.sync_seconds,
        on_change=refresher.wake,
        retry=retry,
        observer=observer,
    )
    live.sources = syncing.describe  # also with the sync off: what `rag sync` last did
    if settings.sync_seconds <= 0:
        return follow

    async def follow_and_sync() -> None:
        task = asyncio.create_task(syncing.run())
        try:
            await follow()
        finally:
            task.cancel()

    return follow_and_sync


def _builder(
    settings: Settings,
    embeddings: Embeddings | None,
    redis: GuardedRedis | None,
    backfill: Backfill,
    builds: BackgroundBuilds,
    beside_questions: bool,
) -> tuple[Build, Sharing | None, VectorStore | None]:
    """The build every refresh runs; with Redis it reads the vectors other processes computed
    and shares its own (:mod:`rag.serving.sharing`). ``beside_questions``: builds embed with a
    handle (and low-priority thread) of their own; the console embeds everything before its
    one user asks, at full speed. With VECTOR_STORE=qdrant the store (returned too) is what
    processes share: nothing goes through Redis."""
    vector_store = vector_store_from_settings(settings)
    indexing = embeddings
    if embeddings is not None and beside_questions:
        indexing = for_indexing(embeddings)
    sharing = None
    if redis is not None and indexing is not None and vector_store is None:
        sharing = Sharing.over(redis, indexing)
    shared = None if sharing is None or indexing is None else sharing.around(indexing)
    build = index_builder(
        settings.docs_dir,
        settings.index_dir,
        embeddings=indexing if shared is None else shared,
        min_score=settings.min_score,
        on_progress=backfill.progress,
        stopping=builds.stopping,
        vector_store=vector_store,
    )
    if sharing is None or shared is None:
        return build, None, vector_store
    return sharing.publishing(build, shared), sharing, vector_store


def _first_build(
    settings: Settings,
    embeddings: Embeddings | None,
    build: Build,
    progress: TextIO | None,
    vector_store: VectorStore | None,
    *,
    embed_small: bool = True,
) -> tuple[Built, int, int]:
    """The full index when its vectors are (nearly all) cached, else the lexical one at once;
    with how many passages the background backfill will embed, of how many vectors in all.
    One pass over the folder when every vector is cached (a restart on an unchanged folder)
    or too many are missing. ``progress``: where reading a new folder says how far it is (the
    console: 1,200 pages take seconds before it can answer). ``embed_small``: a folder missing
    at most ``LEXICAL_FIRST_AT`` vectors is embedded before the first answer."""
    line = None if progress is None else ProgressLine(progress)
    try:
        index, report = load_or_build(
            settings.docs_dir,
            settings.index_dir,
            embeddings=embeddings,
            min_score=settings.min_score,
            embed_at_most=0,
            on_stage=None if line is None else line.stage,
            vector_store=vector_store,
        )
    finally:
        if line is not None:
            line.close()
    skipped = tuple((s.path, s.reason) for s in report.skipped)
    if embeddings is None:
        documents = len({chunk.source for chunk in index.chunks})
        return Built(index, "full", documents, skipped), 0, 0
    if report.missing == 0:
        return Built(index, "full", report.files, skipped), 0, report.vectors
    if embed_small and report.missing <= LEXICAL_FIRST_AT:
        try:
            return build(), 0, report.vectors
        except VectorStoreUnavailable:  # said once by its guard: answer lexically meanwhile
            pass
    return Built(index, "lexical", report.files, skipped), report.missing, report.vectors
