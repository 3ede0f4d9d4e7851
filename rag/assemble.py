"""Builds the answer core from settings: index, chat model, cache, pipeline.

The one place in ``rag/`` that turns a :class:`~rag.settings.Settings` into objects. The edges
(``python -m rag ask``, ``python -m bot``) call :func:`build_pipeline` once and pass the result
down; tests build :class:`~rag.pipeline.Pipeline` directly from fakes.
"""

from __future__ import annotations

from rag.cache.answers import cache_from_settings
from rag.cache.reviewed import ReviewedAnswers
from rag.generate.llm import Generator
from rag.ingest.build import open_index
from rag.pipeline import Pipeline
from rag.settings import Settings


def build_pipeline(
    settings: Settings, *, progress: bool = False, reviewed: ReviewedAnswers | None = None
) -> Pipeline:
    """Open (or build) the index over DOCS_DIR and wire the pipeline around it.

    The threshold is MIN_SCORE when set, else the index's own (calibrated or shipped default).
    """
    index = open_index(settings, progress=progress)
    min_score = settings.min_score if settings.min_score is not None else index.min_score
    return Pipeline(
        index=index,
        generator=Generator.from_settings(settings),
        cache=cache_from_settings(settings),
        min_score=min_score,
        top_k=settings.top_k,
        reviewed=reviewed,
    )
