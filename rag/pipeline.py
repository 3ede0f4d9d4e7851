"""``answer(question)``: the path of one question through the answer core.

    reviewed answer? -> cache (single-flight) -> retrieve -> gate -> generate -> check
                                                          \\-> Refusal (model not called)
    -> settled once by the reviewed answers: an answer people voted down (withdrawn) goes to
       review instead of being served; a draft a reviewer rejected is refused

``progress`` hears each stage of a fresh answer (retrieving, generating, checking). Results are
values (``Answer | Refusal | Unverified``). The one failure that escapes is ``GenerationError``
— the chat model could not be reached after its retries — which the edge turns into one human
sentence; nothing failed is cached. ``aclose`` closes what it holds open (the chat models'
HTTP clients too)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime

from langchain_core.messages import BaseMessage, HumanMessage

from rag.cache.answers import AnswerCache, cache_key
from rag.check.attribution import attribute, recite
from rag.check.conflicts import find_conflict
from rag.check.judge import ModelJudge
from rag.check.leak import recites_rules
from rag.check.pointers import has_pointers, screen_pointed
from rag.check.screen import cut_problem, screen, with_problem
from rag.check.support import warm_up
from rag.generate.llm import Generator, close_models
from rag.generate.prompt import PROMPT_VERSION, ask_again, build_messages
from rag.generate.reply import tidy
from rag.language import Language, detect_language
from rag.markers import in_citation_order
from rag.messages import is_refusal_text, refusal_text
from rag.parts import parts_of
from rag.progress import Progress, elapsed_ms, tell
from rag.questions import question_digest
from rag.results import Answer, Hit, Refusal, Result, Unverified, answer_hash
from rag.reviewed.answers import ReviewedAnswers
from rag.reviewed.policy import around
from rag.scopes.sets import ALL_KEY, ScopeCatalog
from rag.search.gather import gather
from rag.search.in_force import InForce, Standings
from rag.search.index import Index
from rag.standing import conflicting, lapsed_notice

logger = logging.getLogger(__name__)
DEFAULT_SCOPE = ALL_KEY
"""Every document: no SCOPES_FILE, or an admin at the command line."""

MAX_QUESTION_CHARS = 2000
"""The longest question the core is meant for: each edge cuts longer ones (and tells the
asker) before calling :meth:`Pipeline.answer`."""


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """Which answer two people voted down, as its buttons carried it (:meth:`Pipeline.withdraw`)."""

    question: str
    scope: str
    index_version: str
    text_hash: str
    """The answer text's :func:`answer_hash`."""
    by: str
    """Who voted it down, for the reviewers."""
    digest: str = ""
    """The question's :func:`question_digest`: what identifies it when ``question`` had to be
    shortened to fit a button."""

    @property
    def key(self) -> str:
        return self.digest or question_digest(self.question.strip(), self.scope)


@dataclass
class Pipeline:
    index: Index
    generator: Generator
    cache: AnswerCache
    min_score: float
    top_k: int = 5
    reviewed: ReviewedAnswers | None = None
    model_id: str = field(default="")
    judge: ModelJudge | None = None
    """The optional model judge (CHECKER_MODEL_JUDGE): adds problems, never removes one."""
    scopes: ScopeCatalog = field(default_factory=ScopeCatalog)
    """The scopes SCOPES_FILE defines: turns an asker's scope key into the documents to search."""
    warm_checker: bool = True
    """Load the checker's segmenter now (a server: not while its first asker waits); off for
    one question (``rag ask``), which loads it only if its answer is checked in Chinese."""
    cite_sentences: bool = False
    """CITE_SENTENCES: the model cites ``[2.3]`` and each claim is checked against that
    sentence (:mod:`rag.check.pointers`); askers still see ``[2]``."""
    today: Callable[[], date] = date.today
    """Which day it is for documents' ``effective`` and ``expires`` dates (tests inject it)."""
    _standings: Standings = field(default_factory=Standings, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.top_k < 1:
            msg = f"top_k ({self.top_k}) must be at least 1"
            raise ValueError(msg)
        if self.warm_checker:
            warm_up()  # the checker's segmenter: loaded once per process, not on the first answer
        if not self.model_id:
            self.model_id = self.generator.model_id
            if self.judge is not None:  # judged and unjudged results must not share a key
                self.model_id += f"+{self.judge.model_id}"
            if self.cite_sentences:
                self.model_id += "+sentences"

    async def answer(
        self,
        question: str,
        *,
        scope: str = DEFAULT_SCOPE,
        progress: Progress | None = None,
        language: Language | None = None,
    ) -> Result:
        """``scope``: the asker's :attr:`~rag.scopes.sets.ScopeSet.key`. It keys the reviewed
        answers, the cache and single-flight, and only its documents are searched.
        ``language``: the asker's, when the edge has detected it already (else from
        ``question``); every result and text of this question is written in it. One pass
        down: reviewed answers (before and after) -> cache -> the stages."""
        question = question.strip()
        language = language or detect_language(question)
        key = self._key(digest := question_digest(question, scope), self.index.version, scope)
        return await around(
            self.reviewed,
            question,
            scope=scope,
            digest=digest,
            index=self.index,
            allows=self.scopes.parse(scope).allows,
            cached=lambda compute: self.cache.get_or_compute(key, compute),
            compute=lambda: self._compute(question, scope, progress, language),
        )

    def _key(self, digest: str, index_version: str, scope: str | None = None) -> str:
        """With ``scope``: and which of its dated documents are in force today."""
        stamp = "" if scope is None else self._standing(scope).stamp
        return cache_key(
            digest,
            index_version=f"{index_version}:{stamp}" if stamp else index_version,
            model_id=self.model_id,
            prompt_version=PROMPT_VERSION,
        )

    async def withdraw(self, withdrawal: Withdrawal) -> Answer | None:
        """Stop serving the answer two people voted down (``withdrawal``): out of the cache, a
        reviewed one forgotten, and the text kept from being served again until a reviewer
        approves it. What the cache held, if it was that answer (its text and sources for the
        reviewers)."""
        digest, version = withdrawal.key, withdrawal.index_version
        dropped = await self.cache.forget(self._key(digest, version))
        current = self._key(digest, self.index.version, withdrawal.scope)
        if current != self._key(digest, version):  # the index (or what is in force) changed
            now = await self.cache.forget(current)
            dropped = dropped or now
        if self.reviewed is not None:
            await self.reviewed.withdraw(
                withdrawal.question,
                scope=withdrawal.scope,
                text_hash=withdrawal.text_hash,
                by=withdrawal.by,
                at=datetime.now(UTC),
                digest=digest,
            )
        if isinstance(dropped, Answer) and answer_hash(dropped.text) == withdrawal.text_hash:
            return dropped
        return None

    def _standing(self, scope: str) -> InForce:
        """What ``scope`` may be answered from today, and what it may see that is not in
        force (:mod:`rag.search.in_force`)."""
        return self._standings.of(self.index, self.scopes.parse(scope), scope, self.today())

    def _lapsed(self, question: str, scope: str, language: Language) -> Refusal | None:
        rows = self._standing(scope).lapsed
        return lapsed_notice(
            self.index, question, rows, k=self.top_k, min_score=self.min_score,
            language=language, today=self.today(),
        )  # fmt: skip

    async def retrieve(self, question: str, *, scope: str = DEFAULT_SCOPE) -> list[Hit]:
        """The top-k passages ``scope`` may see, in force today (a key naming no scope: none);
        for a list, count or comparison question a passage for each part
        (:mod:`rag.search.gather`)."""
        index, rows = self.index, self._standing(scope).answerable
        # Retrieval is CPU-bound numpy work: off the event loop, so Slack acks stay fast.
        if (parts := parts_of(question)) is not None:
            return await asyncio.to_thread(gather, index, question, parts, self.top_k, rows=rows)
        return await asyncio.to_thread(index.search, question, self.top_k, rows=rows)

    async def _compute(
        self, question: str, scope: str, progress: Progress | None, language: Language
    ) -> Result:
        """The stages, for a question neither reviewed nor cached (nothing here calls back up
        to the reviewed answers: the result is settled after the cache, see :func:`around`)."""
        started = time.perf_counter()
        timings: dict[str, float] = {}
        tell(progress, "retrieving")
        hits = tuple(await self.retrieve(question, scope=scope))
        timings["retrieve"] = elapsed_ms(started)
        if not hits or hits[0].score < self.min_score:
            # Only a document no longer (or not yet) in force answers: the asker is told so.
            notice = await asyncio.to_thread(self._lapsed, question, scope, language)
            timings["total"] = elapsed_ms(started)
            refusal = Refusal(question, refusal_text(language), hits, language=language)
            return replace(notice or refusal, timings_ms=timings)
        conflict = find_conflict(question, hits, min_score=self.min_score)
        if conflict is not None:
            timings["total"] = elapsed_ms(started)
            return conflicting(question, hits, conflict, language, timings)

        tell(progress, "generating")
        step = time.perf_counter()
        draft, cut = await self._draft(question, hits, language)
        timings["generate"] = elapsed_ms(step)
        tell(progress, "checking")
        step = time.perf_counter()
        if self.cite_sentences:
            draft, screening = screen_pointed(draft, hits, question=question, language=language)
        else:
            screening = screen(draft, hits, question=question, language=language)
        if cut and screening.refused is None:  # what was cut off may have changed what it says
            screening = with_problem(screening, cut_problem(language))
        timings["check"] = elapsed_ms(step)
        timings["total"] = elapsed_ms(started)
        if screening.refused is not None:
            # Recited its rules (nobody sees that, not even a reviewer) or said it can't answer.
            return Refusal(
                question, refusal_text(language), hits, reason=screening.refused,
                timings_ms=timings, language=language,
            )  # fmt: skip
        report = screening.report
        if self.judge is not None:
            step = time.perf_counter()
            judged = await self.judge.review(draft, hits, language=language)
            report = replace(report, problems=report.problems + judged.problems)
            timings["judge"] = elapsed_ms(step)
            timings["judge_tokens"] = judged.tokens
            timings["total"] = elapsed_ms(started)
        if report.ok:
            text, hits = in_citation_order(draft, hits)
            return Answer(question, text, hits, timings_ms=timings, language=language)
        return Unverified(
            question, draft, report.problems, hits, timings_ms=timings, language=language
        )

    async def _draft(
        self, question: str, hits: tuple[Hit, ...], language: Language
    ) -> tuple[str, bool]:
        """The model's reply tidied into the prompt's format (:mod:`rag.generate.reply`), and
        whether it was cut at LLM_MAX_TOKENS."""
        messages = build_messages(question, hits, language=language, sentences=self.cite_sentences)
        reply = await self.generator.generate_reply(messages)
        draft = tidy(reply.text.strip(), sources=len(hits), language=language)
        # A refusal or a recital is never asked for again; the offline answerer never is.
        if is_refusal_text(draft) or recites_rules(draft) or self.generator.quotes_sources:
            return draft, _was_cut(reply)
        # Small models answer a Chinese question over English passages in English: asked once
        # more (the checker reads either language). They also often cite nothing, and asked
        # again return the same text: each sentence is given the source that holds it instead,
        # and a sentence citing a source that barely holds it is moved to the one that does
        # (rag.check.attribution). With CITE_SENTENCES the pointers are asked for again.
        elsewhere = detect_language(draft) != language
        ask_for_pointers = self.cite_sentences and not has_pointers(draft)
        if elsewhere or ask_for_pointers:
            again = ask_again(
                language,
                in_language=elsewhere,
                cite=ask_for_pointers,
                sentences=self.cite_sentences,
            )
            reply = await self.generator.generate_reply([*messages, reply, HumanMessage(again)])
            draft = tidy(reply.text.strip(), sources=len(hits), language=language)
        if not self.cite_sentences and not is_refusal_text(draft):
            draft, given = attribute(draft, hits)
            if given:
                logger.info("the draft cited nothing: %d sentence(s) given their source", given)
            draft, moved = recite(draft, hits)
            if moved:
                logger.info("%d sentence(s) cited a source not holding them: moved", moved)
        return draft, _was_cut(reply)

    async def aclose(self) -> None:
        await self.cache.aclose()
        if self.reviewed is not None:
            await self.reviewed.aclose()
        await close_models(self.generator, self.judge.generator if self.judge else None)


def _was_cut(reply: BaseMessage) -> bool:
    """Whether the model stopped at LLM_MAX_TOKENS."""
    return bool(reply.response_metadata.get("finish_reason") == "length")
