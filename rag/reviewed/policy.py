"""Reviewed answers around the pipeline, as one policy applied in one pass.

Before the cache: a reviewed answer for the question (all its sources visible to the asker)
is served as it is. After the stages: whatever came out — the reviewed answer, a cached result
or a fresh one — is *settled* once: an answer people voted down goes to review instead (refused
when a reviewer rejected that very text), and a draft a reviewer already rejected is refused
rather than queued for review again. The stages below the cache never call back up here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from rag.messages import refusal_text, withdrawn_problem
from rag.problems import Problem
from rag.results import Answer, Refusal, Result, Unverified
from rag.reviewed.answers import ChunkSource, ReviewedAnswers

Compute = Callable[[], Awaitable[Result]]


async def around(
    reviewed: ReviewedAnswers | None,
    question: str,
    *,
    scope: str,
    digest: str,
    index: ChunkSource,
    allows: Callable[[str], bool],
    cached: Callable[[Compute], Awaitable[Result]],
    compute: Compute,
) -> Result:
    """The reviewed answer if there is one (and ``allows`` each of its sources), else the
    cache's (``cached(compute)``); settled once either way. A fresh result is settled before
    the cache keeps it: a withdrawn text is then not kept (the next asker gets a new draft),
    and a rejected draft's refusal is (the model is not asked again for it). ``digest``: the
    question's :func:`~rag.questions.question_digest`, computed once by the caller; every
    result here is for that question (the cache's key normalises it the same way)."""
    if reviewed is None:
        return await cached(compute)
    found = await reviewed.lookup(question, scope=scope, index=index, digest=digest)
    # Keyed by scope already; the check guards against a record filed under a wrong key.
    if found is not None and all(allows(hit.chunk.source) for hit in found.hits):
        return await settled(reviewed, found, scope, digest)

    async def settled_fresh() -> Result:
        return await settled(reviewed, await compute(), scope, digest)

    result = await cached(settled_fresh)
    if result.provenance.cached_at is None:
        return result  # computed now (by this caller or one it waited for): settled already
    return await settled(reviewed, result, scope, digest)


async def settled(reviewed: ReviewedAnswers, result: Result, scope: str, digest: str) -> Result:
    """``result`` as people's votes and reviewers' rejections leave it."""
    if isinstance(result, Answer):
        question, text = result.question, result.text
        if not await reviewed.is_withdrawn(question, scope=scope, text=text, digest=digest):
            return result
        if await reviewed.is_rejected(question, scope=scope, draft=text, digest=digest):
            return _rejected(result)
        problem = Problem("voted_down", withdrawn_problem(result.language))
        return Unverified(
            question, text, (problem,), result.hits, result.timings_ms, language=result.language
        )
    if isinstance(result, Unverified) and await reviewed.is_rejected(
        result.question, scope=scope, draft=result.draft, digest=digest
    ):
        return _rejected(result)
    return result


def _rejected(result: Answer | Unverified) -> Refusal:
    return Refusal(
        result.question,
        refusal_text(result.language),
        result.hits,
        reason="rejected_by_reviewer",
        timings_ms=result.timings_ms,
        language=result.language,
    )
