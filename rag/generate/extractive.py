"""The offline default chat model: quotes the source sentences that best answer the question.

No LLM is involved. :class:`ExtractiveChatModel` reads the numbered sources and the question back
out of the messages :func:`rag.generate.prompt.build_messages` wrote, ranks every source sentence
(:mod:`rag.generate.scoring`: the question's terms it shares, weighted by rarity, what the
question asks for, and with an embedder its similarity to the question), and writes the best one
to three sentences verbatim, each with its ``[n]``, with what they need to read whole
(:mod:`rag.generate.context`). Because every sentence is a verbatim quote of the source it
cites, the citation checker passes by construction; when no sentence shares a term with the
question it says the refusal sentence.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from rag.generate.composed import NOT_COMPLETE, NOT_MENTIONED, Composed, compose
from rag.generate.context import with_context
from rag.generate.prompt import PromptSource, parse_prompt
from rag.generate.quotable import LEAD_IN, TERMINAL, Candidate, quotable
from rag.generate.scoring import SentenceScorer, ranked
from rag.glossary import glossary
from rag.language import Language, detect_language, has_ideograph
from rag.lines import without_marker
from rag.messages import refusal_text
from rag.parts import parts_of
from rag.reading import match_terms, numbers_in
from rag.similarity import SentenceSimilarity

EXTRACTIVE_VERSION = "11"
"""Part of the model identity in cache keys: bump when the choice of sentences changes."""

MAX_SENTENCES = 3
SECOND_CHOICE_RATIO = 0.5
"""A further sentence is quoted only when it scores at least this share of the best one."""
OTHER_SOURCE_RATIO = 0.75
"""A further quote from another source than the best quote's must match nearly as well."""


def choose_sentences(
    question: str,
    sources: Sequence[PromptSource],
    similarity: SentenceSimilarity | None = None,
) -> list[Candidate]:
    """The best 1-3 quotes (with the context they need), the best one's source first; empty
    when none shares a term with the question. ``similarity``: compare the best candidates
    with the question by meaning too (:mod:`rag.generate.scoring`)."""
    wanted = match_terms(question) | _translated_terms(question, sources)
    candidates = quotable(sources)
    if not wanted or not candidates:
        return []
    scorer = SentenceScorer.of(question, wanted, candidates)
    scored = ranked(question, candidates, scorer, similarity)
    best = scored[0][0]
    if best <= 0:
        return []
    several = parts_of(question) is not None
    chosen: list[Candidate] = []
    for value, candidate in scored:
        if len(chosen) == MAX_SENTENCES or value < best * SECOND_CHOICE_RATIO:
            break
        if chosen and candidate.source != chosen[0].source:
            if value < best * OTHER_SOURCE_RATIO:
                continue
            if not several and _restates(candidate, chosen, scorer):
                continue
        if not _repeats(candidate, chosen):
            chosen.append(candidate)
    # An item quoted under its lead-in is not quoted a second time on its own.
    covered = {(c.source, without_marker(item)) for c in chosen for item in c.items}
    chosen = [c for c in chosen if c.items or (c.source, c.text) not in covered]
    # A table header whose rows a quoted lead-in already brings is not quoted again.
    chosen = [
        c
        for c in chosen
        if not c.items
        or not any(
            o is not c and o.source == c.source and set(c.items) < {o.text, *o.items}
            for o in chosen
        )
    ]
    chosen = with_context(chosen, candidates, wanted)
    # The source of the best quote leads; within a source, quotes keep their reading order.
    lead = {c.source: i for i, c in reversed(list(enumerate(chosen)))}
    chosen.sort(key=lambda c: (lead[c.source], c.position))
    return chosen


def _restates(candidate: Candidate, chosen: list[Candidate], scorer: SentenceScorer) -> bool:
    """Whether ``candidate``, from another page, only says again an amount the quotes already
    hold as the answer ("流利级 4800 元" from the fee table, then from a refund example): such
    a page is quoted for another part of a question, not for the same one."""
    said = {n for c in chosen if scorer.holds_asked(c) for n in numbers_in(c.full_text)}
    return bool(said & numbers_in(candidate.full_text))


def _repeats(candidate: Candidate, chosen: list[Candidate]) -> bool:
    """Whether every line of ``candidate`` is already quoted: passages overlap (by 100
    characters), so the same sentence, or a table's header row, can be in two sources."""
    quoted = [line for quote in chosen for line in (quote.text, *quote.items)]
    return all(any(line in said for said in quoted) for line in (candidate.text, *candidate.items))


def _translated_terms(question: str, sources: Sequence[PromptSource]) -> set[str]:
    """The question's words in the other language when every source is written in that one
    (:mod:`rag.glossary`): every dictionary sense, since only the sentences' own words count.
    One source in the question's language (prose around a config block) is read as it is."""
    asked: Language = "zh" if has_ideograph(question) else "en"  # the pipeline detects once
    if not sources or any(detect_language(source.text) == asked for source in sources):
        return set()
    senses = glossary().candidates(question, "en" if asked == "zh" else "zh")
    return match_terms("\n".join(sense for word in senses for sense in word))


def _cited(sentence: str, n: int) -> str:
    """Put ``[n]`` right after the claim, before the closing punctuation (``…16 课时[1]。``);
    a sentence of several clauses cites each (``…调休[1]；…200% 支付加班工资[1]。``), as the
    checker reads each clause as a claim of its own."""
    clauses = [c for c in re.split(r"(?<=；)", sentence) if c]
    if len(clauses) > 1:
        return "".join(_cited(clause, n) for clause in clauses)
    language = detect_language(sentence)
    terminal = TERMINAL.search(sentence)
    body, end = (sentence[: terminal.start()], terminal.group()) if terminal else (sentence, "")
    space = " " if body[-1:].isascii() and body[-1:].isalnum() else ""
    return f"{body}{space}[{n}]{end or ('。' if language == 'zh' else '.')}"


_LEAD_IN_TEXT: dict[Language, str] = {
    "zh": "资料原文如下：",
    "en": "From our documents, as written: ",
}
"""Only when the quotes are in the other language than the question; no quantities, no claims."""


def _quote(candidate: Candidate) -> str:
    if not candidate.items:
        return _cited(candidate.text, candidate.source)
    # "…依次为[1]：" then the list verbatim: the marker stays on the sentence it belongs to.
    if LEAD_IN.search(candidate.text):
        lead_in = f"{candidate.text[:-1]}[{candidate.source}]{candidate.text[-1]}"
        return "\n".join((lead_in, *candidate.items))
    # A table under its header row: every row is a claim of its own and cites.
    rows = (f"{row} [{candidate.source}]" for row in (candidate.text, *candidate.items))
    return "\n".join(rows)


def extractive_answer(
    question: str,
    sources: Sequence[PromptSource],
    similarity: SentenceSimilarity | None = None,
) -> str:
    language = detect_language(question)
    parts = parts_of(question)
    if parts is not None:
        wanted = match_terms(question) | _translated_terms(question, sources)
        composed = compose(question, parts, sources, wanted, similarity)
        if composed is not None and not composed.quotes:
            return refusal_text(language)  # no source names any of the compared things
        if composed is not None:
            return _composed_answer(composed, language)
    chosen = choose_sentences(question, sources, similarity)
    if not chosen:
        return refusal_text(language)
    quotes = [_quote(candidate) for candidate in chosen]
    quoted_language = detect_language("".join(c.full_text for c in chosen))
    if any(candidate.items for candidate in chosen):
        # A quoted list is its own paragraph: what follows it must not read as part of it.
        text = "\n\n".join(quotes)
    else:
        text = ("" if quoted_language == "zh" else " ").join(quotes)
    return text if quoted_language == language else _LEAD_IN_TEXT[language] + text


def _composed_answer(composed: Composed, language: Language) -> str:
    """A line per part, each quote citing its own source (a list's items each cite too:
    every part must carry its citation); then what the sources don't say."""
    lines = []
    for quote in composed.quotes:
        candidate = quote.candidate
        text = _cited(candidate.text, candidate.source)
        if quote.label:
            text = f"{quote.label}{'：' if language == 'zh' else ': '}{text}"
        lines.append(text)
        lines += [f"{item} [{candidate.source}]" for item in candidate.items]
    lines += [NOT_MENTIONED[language].format(thing) for thing in composed.missing]
    if composed.incomplete:
        lines.append(NOT_COMPLETE[language][composed.shape])
    quoted = detect_language("".join(q.candidate.full_text for q in composed.quotes))
    text = "\n".join(lines)
    return text if quoted == language else _LEAD_IN_TEXT[language] + text


class ExtractiveChatModel(BaseChatModel):
    """A :class:`BaseChatModel` that needs no LLM: deterministic, offline, milliseconds by
    words alone; with ``similarity`` (an embedder) it also compares a few sentences with the
    question by meaning, which costs an embedding call per answer."""

    similarity: SentenceSimilarity | None = None

    @property
    def _llm_type(self) -> str:
        return "citebot-extractive"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        prompt = parse_prompt(messages)
        text = extractive_answer(prompt.question, prompt.sources, self.similarity)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.similarity is None:
            # Pure CPU work of a few milliseconds: cheaper inline than in a thread.
            return self._generate(messages, stop=stop, **kwargs)
        # Embedding sentences takes tens to hundreds of milliseconds: off the event loop.
        return await asyncio.to_thread(self._generate, messages, stop, **kwargs)


def model_identity(model: BaseChatModel) -> str:
    """What identifies a model's answers in cache keys: changes when the answers would."""
    if isinstance(model, ExtractiveChatModel):
        dense = f"+{model.similarity.identity}" if model.similarity is not None else ""
        return f"extractive/{EXTRACTIVE_VERSION}{dense}"
    name = getattr(model, "model_name", None) or getattr(model, "model", None) or ""
    base_url = getattr(model, "openai_api_base", None)
    if base_url is not None:
        host = re.sub(r"^[a-z]+://", "", str(base_url)).split("/", 1)[0]
        return f"openai-compatible:{host}/{name}"
    return f"{model._llm_type}/{name}" if name else model._llm_type
