"""Builds the answer core from settings: index, chat model, cache, pipeline.

The one place in ``rag/`` that turns a :class:`~rag.settings.Settings` into objects; the
modules below it take plain values. The edges (``python -m rag ask``, ``python -m bot``) build
the process's one Redis client (:func:`redis_from_settings`, or the bot's own) and call
:func:`build_pipeline` once with it, and pass the result down; tests build
:class:`~rag.pipeline.Pipeline` directly from fakes.
"""

from __future__ import annotations

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from rag.cache.answers import AnswerCache, CachePolicy, MemoryCache
from rag.cache.redis_backend import RedisCache
from rag.check.judge import ModelJudge
from rag.generate.llm import Generator, chat_model
from rag.generate.retry import RetryPolicy
from rag.observer import UNOBSERVED, Observer
from rag.pipeline import Pipeline
from rag.reviewed.answers import ReviewedAnswers
from rag.scopes.sets import ScopeCatalog
from rag.search.build import BuildReport, load_or_build
from rag.search.embeddings import embedder_identity, embeddings_for
from rag.search.index import Index
from rag.search.vectors import VectorStore
from rag.settings import Settings, secret
from rag.similarity import SentenceSimilarity, shared
from rag.storage.redis_guard import GuardedRedis


def embeddings_from_settings(settings: Settings) -> Embeddings | None:
    """The embedder EMBEDDINGS asks for; ``None`` means lexical-only retrieval."""
    return embeddings_for(
        settings.embeddings,
        model=settings.embeddings_model,
        base_url=settings.embeddings_base_url,
        api_key=settings.embeddings_api_key,
    )


def vector_store_from_settings(settings: Settings) -> VectorStore | None:
    """Where VECTOR_STORE keeps the passages' vectors: ``None`` for this process (``local``),
    else the Qdrant collection (qdrant-client is imported only then)."""
    if settings.vector_store != "qdrant":
        return None
    from rag.qdrant.connection import Connection, QdrantPlace
    from rag.qdrant.store import QdrantStore

    place = QdrantPlace(
        settings.qdrant_collection,
        url=settings.qdrant_url,
        path=settings.qdrant_path,
        api_key=secret(settings.qdrant_api_key),
    )
    return QdrantStore(Connection(place))


def open_index(settings: Settings, *, progress: bool = False) -> Index:
    """The index over DOCS_DIR: loaded from INDEX_DIR when still valid, else rebuilt."""
    index, _ = build_index(settings, progress=progress)
    return index


def build_index(settings: Settings, *, progress: bool = False) -> tuple[Index, BuildReport]:
    """:func:`open_index` and the report of what loading or rebuilding did."""
    return load_or_build(
        settings.docs_dir,
        settings.index_dir,
        embeddings=embeddings_from_settings(settings),
        min_score=settings.min_score,
        progress=progress,
        vector_store=vector_store_from_settings(settings),
    )


def chat_model_from_settings(
    settings: Settings,
    *,
    max_tokens: int | None = None,
    similarity: SentenceSimilarity | None = None,
) -> BaseChatModel:
    return chat_model(
        base_url=settings.llm_base_url,
        api_key=settings.llm_api_key,
        model=settings.llm_model,
        timeout_seconds=settings.llm_timeout_seconds,
        max_tokens=max_tokens,
        similarity=similarity,
    )


def similarity_from_settings(settings: Settings) -> SentenceSimilarity | None:
    """The offline answerer's question-sentence similarity: EMBEDDINGS' embedder, also while
    the passages' vectors are still being built; ``None`` with ``EMBEDDINGS=none`` or when a
    chat model is configured (it reads the sources itself)."""
    embeddings = None if settings.llm_configured else embeddings_from_settings(settings)
    if embeddings is None:
        return None
    return shared(embeddings, embedder_identity(embeddings))


def generator_from_settings(
    settings: Settings,
    *,
    max_tokens: int | None = None,
    observer: Observer = UNOBSERVED,
    similarity: SentenceSimilarity | None = None,
) -> Generator:
    """``similarity``: for the offline answerer (:func:`similarity_from_settings`)."""
    policy = RetryPolicy(
        max_attempts=settings.llm_max_attempts, deadline_seconds=settings.llm_deadline_seconds
    )
    model = chat_model_from_settings(settings, max_tokens=max_tokens, similarity=similarity)
    return Generator(model, policy, observer=observer)


def redis_from_settings(settings: Settings) -> GuardedRedis | None:
    """The process's one Redis client (REDIS_URL, keys under REDIS_KEY_PREFIX) behind the one
    failure policy, or ``None``. Short timeouts (0.1 s connect and socket, 0.2 s per call): it
    serves the answer cache."""
    url = secret(settings.redis_url)
    return None if url is None else GuardedRedis.from_url(url, key_prefix=settings.redis_key_prefix)


def cache_from_settings(settings: Settings, redis: GuardedRedis | None) -> AnswerCache:
    """Redis over the shared client when there is one (shared by every process), else this
    process's memory. The cache leaves ``redis`` open: whoever built it closes it."""
    policy = CachePolicy(settings.cache_ttl_seconds, settings.refusal_ttl_seconds)
    if redis is None:
        return MemoryCache(policy=policy)
    return RedisCache(redis, policy=policy)


def build_pipeline(
    settings: Settings,
    *,
    redis: GuardedRedis | None,
    progress: bool = False,
    reviewed: ReviewedAnswers | None = None,
    scopes: ScopeCatalog | None = None,
) -> Pipeline:
    """Open (or build) the index over DOCS_DIR and wire the pipeline around it.

    ``redis`` is the process's one client (``None`` when REDIS_URL is unset): the answer cache
    uses it and leaves it open. The threshold is MIN_SCORE when set, else the index's own
    (calibrated or shipped default). ``scopes``: the catalog of SCOPES_FILE, read by the edge
    before this (it stops the program on a bad file before the index is opened); ``None``:
    only the unrestricted scope exists.
    """
    index = open_index(settings, progress=progress)
    return pipeline_around(index, settings, redis=redis, reviewed=reviewed, scopes=scopes)


def pipeline_around(
    index: Index,
    settings: Settings,
    *,
    redis: GuardedRedis | None,
    reviewed: ReviewedAnswers | None = None,
    scopes: ScopeCatalog | None = None,
    warm_checker: bool = True,
    observer: Observer = UNOBSERVED,
) -> Pipeline:
    """The pipeline over an index already built (also by
    :func:`rag.serving.serve.serve_pipeline`); ``warm_checker``: see :class:`Pipeline`;
    ``observer`` hears the chat model's calls (the answers' and the judge's)."""
    min_score = settings.min_score if settings.min_score is not None else index.min_score
    generator = generator_from_settings(
        settings,
        max_tokens=settings.llm_max_tokens,
        observer=observer,
        similarity=similarity_from_settings(settings),
    )
    return Pipeline(
        index=index,
        generator=generator,
        cache=cache_from_settings(settings, redis),
        min_score=min_score,
        top_k=settings.top_k,
        reviewed=reviewed,
        judge=judge_from_settings(settings, observer=observer),
        scopes=scopes or ScopeCatalog(),
        warm_checker=warm_checker,
        cite_sentences=settings.cite_sentences and settings.llm_configured,
    )


def judge_from_settings(
    settings: Settings, *, observer: Observer = UNOBSERVED
) -> ModelJudge | None:
    """The model judge when CHECKER_MODEL_JUDGE is on (with its own retried generator, its
    replies bounded by CHECKER_JUDGE_MAX_TOKENS, not the answers' LLM_MAX_TOKENS)."""
    if not settings.checker_model_judge:
        return None
    return ModelJudge(
        generator_from_settings(
            settings, max_tokens=settings.checker_judge_max_tokens, observer=observer
        )
    )
