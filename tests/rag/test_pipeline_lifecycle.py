"""Answers from documents in force: lapsed pages left out, drafts for their audience only, the
only-lapsed case said plainly, two current pages that disagree sent to review, and the cache
not serving yesterday's answer from a page that expired at midnight."""

from __future__ import annotations

from datetime import date

import pytest

from rag.cache.answers import MemoryCache
from rag.generate.llm import Generator
from rag.generate.retry import RetryPolicy
from rag.ingest.documents import SourceDocument
from rag.lifecycle import Lifecycle
from rag.pipeline import Pipeline
from rag.results import Answer, Refusal, Unverified
from rag.scopes.globs import compile_glob
from rag.scopes.sets import ScopeCatalog
from rag.search.build import index_documents
from rag.search.embeddings import HashingEmbeddings
from rag.search.index import Index
from tests.fakes.chat_model import ScriptedChatModel
from tests.scenarios.lifecycle_harness import (
    CONFLICT_QUESTION,
    CURRENT_QUESTION,
    INDEX,
    LAPSED_QUESTION,
    THRESHOLD,
)

TODAY = date(2026, 12, 1)
REMOTE = "# Remote work\n\n## Remote days\n\nStaff may work remotely up to 2 days per week.\n"
HYBRID = "# Hybrid work\n\n## Remote days\n\nStaff may work remotely up to 3 days per week.\n"
REMOTE_QUESTION = "How many days per week may staff work remotely?"


async def _no_sleep(_: float) -> None:
    return None


def pipeline(
    index: Index,
    threshold: float,
    model: ScriptedChatModel,
    *,
    today: date = TODAY,
    scopes: ScopeCatalog | None = None,
) -> Pipeline:
    return Pipeline(
        index=index,
        generator=Generator(model, RetryPolicy(max_attempts=1, sleep=_no_sleep)),
        cache=MemoryCache(),
        min_score=threshold,
        top_k=3,
        warm_checker=False,
        today=lambda: today,
        scopes=scopes or ScopeCatalog(),
    )


async def test_a_superseded_page_is_not_searched_when_its_successor_answers() -> None:
    model = ScriptedChatModel(replies=["一线城市住宿费每晚上限 600 元[1]。"])
    result = await pipeline(INDEX, THRESHOLD, model).answer(CURRENT_QUESTION)

    assert isinstance(result, Answer)
    assert {hit.chunk.source for hit in result.hits} & {"travel/2023.md"} == set()
    assert "450" not in model.prompts[0][-1].content


async def test_only_a_lapsed_page_answers_the_asker_is_told_so_and_the_model_is_not_called() -> (
    None
):
    model = ScriptedChatModel(replies=["[1]"])
    result = await pipeline(INDEX, THRESHOLD, model).answer(LAPSED_QUESTION)

    assert isinstance(result, Refusal)
    assert result.reason == "no_longer_in_force"
    assert "《通讯补贴标准》" in result.text
    assert "2024-07-01" in result.text
    assert "200" not in result.text
    assert result.hits[0].chunk.source == "hr/phone.md"
    assert model.calls == 0


async def test_two_current_pages_that_disagree_go_to_review_with_both() -> None:
    model = ScriptedChatModel(replies=["[1]"])
    result = await pipeline(INDEX, THRESHOLD, model).answer(CONFLICT_QUESTION)

    assert isinstance(result, Unverified)
    [problem] = result.problems
    assert problem.kind == "conflict"
    cited = {result.hits[n - 1].chunk.source for n in problem.refs}
    assert cited == {"admin/rooms.md", "admin/handbook.md"}
    for n in problem.refs:
        assert f"[{n}]" in result.draft
    assert "14 天" in result.draft
    assert "7 天" in result.draft
    assert "2025-08-12" in result.draft  # each side with its date
    assert model.calls == 0


def _remote_index() -> Index:
    docs = [
        SourceDocument(
            source="hr/remote.md",
            text=REMOTE,
            title="Remote work",
            lifecycle=Lifecycle(expires="2026-11-30", updated="2025-01-01", dated=True),
        ),
        SourceDocument(
            source="drafts/hybrid.md",
            text=HYBRID,
            title="Hybrid work",
            lifecycle=Lifecycle(status="draft", updated="2026-11-15", dated=True),
        ),
        SourceDocument(source="hr/gym.md", text="# Gym\n\nThe gym opens at 7:00.\n", title="Gym"),
    ]
    return index_documents(docs, embeddings=HashingEmbeddings())


@pytest.fixture(scope="module")
def remote() -> tuple[Index, float]:
    index = _remote_index()
    answerable = index.search(REMOTE_QUESTION, 3)[0].score
    unanswerable = index.search("Where is the car park?", 3)[0].score
    return index, (answerable + unanswerable) / 2


async def test_a_draft_answers_only_an_audience_whose_scope_includes_drafts(
    remote: tuple[Index, float],
) -> None:
    index, threshold = remote
    scopes = ScopeCatalog(
        {"staff": (compile_glob("**"),), "editors": (compile_glob("**"),)},
        drafts=frozenset({"editors"}),
    )
    model = ScriptedChatModel(replies=["Staff may work remotely up to 3 days per week [1]."])
    answering = pipeline(index, threshold, model, scopes=scopes)

    staff = await answering.answer(REMOTE_QUESTION, scope=scopes.of(["staff"]).key)
    editors = await answering.answer(REMOTE_QUESTION, scope=scopes.of(["editors"]).key)

    # Not for staff: the expired page is what covers it, and the draft stays out of sight.
    assert isinstance(staff, Refusal)
    assert "drafts/hybrid.md" not in {hit.chunk.source for hit in staff.hits}
    assert "Hybrid" not in staff.text
    assert isinstance(editors, Answer)
    assert editors.hits[0].chunk.source == "drafts/hybrid.md"


async def test_a_page_that_expired_at_midnight_is_not_served_from_yesterdays_cache(
    remote: tuple[Index, float],
) -> None:
    index, threshold = remote
    day = {"today": date(2026, 11, 30)}
    model = ScriptedChatModel(replies=["Staff may work remotely up to 2 days per week [1]."])
    answering = pipeline(index, threshold, model)
    answering.today = lambda: day["today"]

    before = await answering.answer(REMOTE_QUESTION)
    day["today"] = date(2026, 12, 1)
    after = await answering.answer(REMOTE_QUESTION)

    assert isinstance(before, Answer)  # its last day in force
    assert isinstance(after, Refusal)
    assert after.reason == "no_longer_in_force"
    assert "expired on 2026-12-01" in after.text
    assert after.provenance.cached_at is None
