"""Scopes through the pipeline: retrieval, the gate, the cache and reviewed answers keep apart."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from rag.cache.answers import MemoryCache
from rag.generate.llm import Generator
from rag.generate.retry import RetryPolicy
from rag.ingest.documents import SourceDocument
from rag.pipeline import Pipeline
from rag.results import Answer, Refusal, Unverified
from rag.reviewed.answers import ReviewedAnswers, ReviewedSource
from rag.scopes.globs import compile_glob
from rag.scopes.sets import ALL_KEY, ScopeCatalog
from rag.search.build import index_documents
from rag.search.embeddings import HashingEmbeddings
from rag.search.index import Index
from tests.fakes.chat_model import ScriptedChatModel

LEAVE = """# Annual leave

Full-time employees receive 20 days of paid annual leave per year.
Unused leave expires on 31 March of the following year.
"""
PRICING = """# Pricing

The fluent level costs 4800 yuan for 16 lessons of 45 minutes.
"""
QUESTION = "How many days of annual leave do employees get?"
AT = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)

CATALOG = ScopeCatalog(
    {
        "public": (compile_glob("public/**"), compile_glob("*.md")),
        "hr": (compile_glob("hr/**"),),
    }
)
HR = CATALOG.of(["hr", "public"]).key
PUBLIC = CATALOG.of(["public"]).key


@pytest.fixture(scope="module")
def index() -> Index:
    docs = [
        SourceDocument(source="hr/leave.md", text=LEAVE, title="Annual leave"),
        SourceDocument(source="public/pricing.md", text=PRICING, title="Pricing"),
    ]
    return index_documents(docs, embeddings=HashingEmbeddings())


async def _no_sleep(_: float) -> None:
    return None


def make_pipeline(
    index: Index, model: ScriptedChatModel, reviewed: ReviewedAnswers | None = None
) -> Pipeline:
    return Pipeline(
        index=index,
        generator=Generator(model, RetryPolicy(max_attempts=1, sleep=_no_sleep)),
        cache=MemoryCache(),
        min_score=index.min_score,
        top_k=3,
        reviewed=reviewed,
        scopes=CATALOG,
    )


async def test_hr_scope_is_answered_from_the_hr_document(index: Index) -> None:
    model = ScriptedChatModel(replies=["Employees receive 20 days of paid annual leave[1]."])
    result = await make_pipeline(index, model).answer(QUESTION, scope=HR)
    assert isinstance(result, Answer)
    assert result.hits[0].chunk.source == "hr/leave.md"


async def test_public_scope_never_sees_hr_even_after_hr_was_answered(index: Index) -> None:
    model = ScriptedChatModel(replies=["Employees receive 20 days of paid annual leave[1]."])
    pipeline = make_pipeline(index, model)
    assert isinstance(await pipeline.answer(QUESTION, scope=HR), Answer)
    public = await pipeline.answer(QUESTION, scope=PUBLIC)
    assert isinstance(public, Refusal), "the gate scores allowed passages only"
    assert public.provenance.cached_at is None, "not the HR answer from the cache"
    assert all(hit.chunk.source.startswith("public/") for hit in public.hits)
    assert model.calls == 1, "the model never saw a public question with HR passages"


async def test_the_unrestricted_key_sees_everything(index: Index) -> None:
    model = ScriptedChatModel(replies=["Employees receive 20 days of paid annual leave[1]."])
    result = await make_pipeline(index, model).answer(QUESTION, scope=ALL_KEY)
    assert isinstance(result, Answer)


async def test_a_key_naming_no_scope_finds_nothing(index: Index) -> None:
    model = ScriptedChatModel()
    result = await make_pipeline(index, model).answer(QUESTION, scope="hr@stale")
    assert isinstance(result, Refusal)
    assert result.hits == ()
    assert model.calls == 0


async def test_a_reviewed_answer_is_served_only_in_its_scope(index: Index) -> None:
    reviewed = ReviewedAnswers.in_memory()
    leave = next(c for c in index.chunks if c.source == "hr/leave.md")
    await reviewed.approve(
        QUESTION,
        scope=HR,
        text="Twenty days a year[1].",
        sources=[ReviewedSource(leave.id, leave.hash, 0.9, 1)],
        reviewer="UREV",
        at=AT,
    )
    model = ScriptedChatModel()
    pipeline = make_pipeline(index, model, reviewed)
    hr = await pipeline.answer(QUESTION, scope=HR)
    assert isinstance(hr, Answer)
    assert hr.provenance.reviewed_by == "UREV"
    public = await pipeline.answer(QUESTION, scope=PUBLIC)
    assert isinstance(public, Refusal)


async def test_a_reviewed_answer_filed_under_a_wrong_key_is_not_served(index: Index) -> None:
    reviewed = ReviewedAnswers.in_memory()
    leave = next(c for c in index.chunks if c.source == "hr/leave.md")
    await reviewed.approve(
        QUESTION,
        scope=PUBLIC,
        text="Twenty days a year[1].",
        sources=[ReviewedSource(leave.id, leave.hash, 0.9, 1)],
        reviewer="UREV",
        at=AT,
    )
    result = await make_pipeline(index, ScriptedChatModel(), reviewed).answer(
        QUESTION, scope=PUBLIC
    )
    assert isinstance(result, Refusal)


async def test_a_rejected_draft_is_rejected_only_in_its_scope(index: Index) -> None:
    draft = "Employees receive 25 days of paid annual leave[1]."
    reviewed = ReviewedAnswers.in_memory()
    await reviewed.reject(QUESTION, scope=HR, draft=draft, reviewer="UREV", at=AT)
    pipeline = make_pipeline(index, ScriptedChatModel(replies=[draft]), reviewed)
    assert isinstance(await pipeline.answer(QUESTION, scope=HR), Refusal)
    everything = await pipeline.answer(QUESTION, scope=ALL_KEY)
    assert isinstance(everything, Unverified), "another scope's rejection does not apply"
