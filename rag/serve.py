"""The answer core as a long-running process serves it: a live pipeline that follows DOCS_DIR.

:func:`serve_pipeline` builds the index (once, with the one embedder this process keeps for
every rebuild), the pipeline around it, wraps it in a :class:`~rag.live.LivePipeline` whose
index can be swapped, and gives it a :class:`~rag.ingest.refresh.Refresher` — coordinated
through Redis when there is one (build lock, version announcements), else through INDEX_DIR.
The edge runs ``live.follow()`` as a background task while it serves.
"""

from __future__ import annotations

from langchain_core.embeddings import Embeddings

from rag.assemble import embeddings_from_settings, pipeline_around
from rag.cache.breaker import GuardedRedis
from rag.cache.reviewed import ReviewedAnswers
from rag.ingest.coordination import coordination
from rag.ingest.refresh import Refresher, fingerprint, index_builder
from rag.live import LivePipeline
from rag.scopes.sets import ScopeCatalog
from rag.settings import Settings

FROM_SETTINGS = object()


def serve_pipeline(
    settings: Settings,
    *,
    redis: GuardedRedis | None,
    reviewed: ReviewedAnswers | None = None,
    embeddings: Embeddings | object | None = FROM_SETTINGS,
    scopes: ScopeCatalog | None = None,
) -> LivePipeline:
    """``embeddings``: EMBEDDINGS' embedder unless given (a test counts what is embedded)."""
    if embeddings is FROM_SETTINGS:
        embeddings = embeddings_from_settings(settings)
    assert embeddings is None or isinstance(embeddings, Embeddings)
    build = index_builder(
        settings.docs_dir, settings.index_dir, embeddings=embeddings, min_score=settings.min_score
    )
    try:
        known: str | None = fingerprint(settings.docs_dir)  # before the build: no change missed
    except OSError:
        known = None
    built = build()
    pipeline = pipeline_around(built.index, settings, redis=redis, reviewed=reviewed, scopes=scopes)
    live = LivePipeline(pipeline, mode=built.mode, fixed_min_score=settings.min_score)
    client = None if redis is None else redis.client  # the lock and announcements: plain Redis
    lock, announcers = coordination(settings.docs_dir, settings.index_dir, client)
    refresher = Refresher(
        live,
        build,
        docs_dir=settings.docs_dir,
        refresh_seconds=settings.refresh_seconds,
        lock=lock,
        announcers=announcers,
        known=known,
    )
    live.follower = refresher.run
    return live
