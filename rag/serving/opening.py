"""How a command opens the answer core over DOCS_DIR: like a starting bot, then answer and exit.

``python -m rag ask`` answers one question and exits; waiting for the whole folder to be
embedded first (the bundled e5 embeds 20–35 passages a second on 2 cores: 36k passages take
20–30 min) is not what anyone asking one question wants. So, as a bot starts
(:func:`rag.serving.serve.serve_pipeline`): the index is loaded
(:func:`rag.search.build.load_or_build`: unchanged files unread, lexical index and vectors
stored), and when more than :data:`~rag.serving.holder.LEXICAL_FIRST_AT` passages lack a vector
the question is answered from the lexical index at once — the index the bot answers from in
its lexical phase, each question's best lexical candidates embedded on demand
(:mod:`rag.search.on_demand`) — and :func:`lexical_note` says so in one line.
``rag index`` (or a running bot) embeds the rest. With ``lexical_first=False`` (a batch of
questions measured for quality) everything is embedded first, with a progress line.

The build runs in a thread of its own under :func:`~rag.serving.stopping.stop_on_signals`:
Ctrl-C or SIGTERM stop it between two batches, keeping what it embedded.
"""

from __future__ import annotations

import asyncio
import functools
import sys
from dataclasses import dataclass
from typing import TextIO

from rag.assemble import embeddings_from_settings, pipeline_around, vector_store_from_settings
from rag.pipeline import Pipeline
from rag.scopes.sets import ScopeCatalog
from rag.search.build import BuildReport, load_or_build
from rag.search.embeddings import E5Embeddings, embedder_identity
from rag.search.progress_line import ProgressLine, duration
from rag.serving.background import BackgroundBuilds, Watched, stoppable
from rag.serving.holder import LEXICAL_FIRST_AT
from rag.serving.stopping import stop_on_signals
from rag.settings import Settings
from rag.storage.redis_guard import GuardedRedis

ASSUMED_RATES = {E5Embeddings.identity: 45.0, E5Embeddings.NUMPY_IDENTITY: 22.0}
"""Passages a second an embedder is known to manage on 2 cores, for the estimate said before
any is embedded. The numpy engine on an idle machine: 19.5-20.3 on a 36k-passage folder
(issue 38), 24 on realdocs-tune en-18f, 26 on zh-apisix; onnxruntime's int8 path 2.0x the
numpy engine, paired on the same (busy) machine (bench/speed.py); fewer when it is shared."""


@dataclass(frozen=True, slots=True)
class Opened:
    pipeline: Pipeline
    report: BuildReport
    embedder: str | None
    """The embedder's identity; ``None`` with ``EMBEDDINGS=none``."""

    @property
    def lexical(self) -> bool:
        return self.report.missing > 0


async def open_pipeline(
    settings: Settings,
    *,
    redis: GuardedRedis | None,
    scopes: ScopeCatalog | None = None,
    lexical_first: bool = True,
    embed_first: bool = False,
    stderr: TextIO | None = None,
) -> Opened:
    """Raises :class:`~rag.search.embedding_run.BuildStopped` when Ctrl-C or SIGTERM stopped
    the embedding (what it embedded is kept). Progress goes to ``stderr`` (default:
    ``sys.stderr`` as it is when called)."""
    stderr = sys.stderr if stderr is None else stderr
    embeddings = embeddings_from_settings(settings)
    line = ProgressLine(stderr)
    builds = BackgroundBuilds()
    watched = None if embeddings is None else Watched(embeddings, stopping=builds.stopping)
    build = functools.partial(
        load_or_build,
        settings.docs_dir,
        settings.index_dir,
        embeddings=watched,
        min_score=settings.min_score,
        on_progress=line,
        on_stage=stoppable(line.stage, builds.stopping),
        embed_at_most=_embed_at_most(lexical_first=lexical_first, embed_first=embed_first),
        vector_store=vector_store_from_settings(settings),
    )
    try:
        with stop_on_signals(builds, lambda text: print(f"\n{text}", file=stderr, flush=True)):
            index, report = await builds.run(build)
    finally:
        line.close()
        await asyncio.to_thread(builds.join)
    # One question (or one batch): the checker's segmenter (a second of jieba's dictionary)
    # loads only if an answer needs it, not for a refusal or an English answer.
    pipeline = pipeline_around(index, settings, redis=redis, scopes=scopes, warm_checker=False)
    identity = None if embeddings is None else embedder_identity(embeddings)
    return Opened(pipeline, report, identity)


def _embed_at_most(*, lexical_first: bool, embed_first: bool) -> int | None:
    """``embed_first``: a batch measured for quality. With ``lexical_first`` too, it measures the
    first minutes: never embedded first, whatever is stored (-1: always lexical)."""
    if embed_first:
        return -1 if lexical_first else None
    return LEXICAL_FIRST_AT if lexical_first else None


def embedding_estimate(settings: Settings, passages: int) -> float | None:
    """Seconds the configured embedder is expected to need for ``passages`` on 2 cores, before
    any is embedded (``None``: no known rate, as for a remote endpoint)."""
    rate = ASSUMED_RATES.get(E5Embeddings().identity if settings.embeddings == "e5" else "")
    return None if rate is None else passages / rate


def lexical_note(opened: Opened) -> str:
    """One line: the answer came from the lexical index, and what full quality takes."""
    report = opened.report
    rate = ASSUMED_RATES.get(opened.embedder or "")
    took = "" if rate is None else f", about {duration(report.missing / rate)} on 2 cores"
    return (
        f"citebot: {report.missing:,} of {report.chunks:,} passages have no vector yet, so "
        "this answer weighed only the question's best lexical matches (embedded for it); "
        f"`python -m rag index` embeds them all{took} (with progress; Ctrl-C keeps what it "
        "embedded, a rerun resumes), then every passage is weighed"
    )
