"""The offline default chat model: quotes the source sentences that best match the question.

No LLM is involved. :class:`ExtractiveChatModel` reads the numbered sources and the question back
out of the messages :func:`rag.generate.prompt.build_messages` wrote, scores every source sentence
against the question by shared terms (:func:`rag.reading.match_terms`, weighted by
rarity), and writes the best one to three sentences verbatim, each with its ``[n]``. Because every
sentence is a verbatim quote of the source it cites, the citation checker passes by construction;
when no sentence shares a term with the question it says the refusal sentence.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from rag.generate.prompt import PromptSource, parse_prompt
from rag.generate.quotable import (
    LEAD_IN,
    TERMINAL,
    Candidate,
    quotable,
)
from rag.glossary import glossary
from rag.language import Language, detect_language, has_ideograph
from rag.lines import without_marker
from rag.messages import refusal_text
from rag.reading import match_terms

EXTRACTIVE_VERSION = "7"
"""Part of the model identity in cache keys: bump when the choice of sentences changes."""

MAX_SENTENCES = 3
SECOND_CHOICE_RATIO = 0.5
"""A further sentence is quoted only when it scores at least this share of the best one."""
QUANTITY_BONUS = 1.5
"""For 多少/几/how much questions, sentences that contain a number are what the asker wants."""
RANK_PRIOR = 0.5
"""A sentence of the best source outweighs an equally matching one of the last by this share."""
OTHER_SOURCE_RATIO = 0.75
"""A further quote from another source than the best quote's must match nearly as well."""
FORMULA_BONUS = 1.5
"""For 怎么算/how is it calculated questions, a sentence with a calculation is the answer."""
EXAMPLE_RATIO = 0.6
"""A sentence under a worked example's heading ("计算示例", "Example") weighs this share: the
rule it illustrates is the answer, the example at most its illustration."""
SHARED_WITH_QUOTE = 2
"""Terms the next sentence (or paragraph) must share with the best quote to go along."""
FOLLOWING_CHARS = 220
"""The best quote brings the next sentence of its paragraph when that one is at most this long:
a rule and its exception, a symptom and its fix, usually sit side by side."""

_FORMULA = re.compile(r"[=×÷]")
ANAPHOR = re.compile(
    r"^(?:该|其|此|这|这些|这个|这种|它|它们|他们|上述|以上|前者|后者|同时|此外|另外|但|但是|否则)"
    r"|^(?:it|its|this|that|these|those|they|them|such|then|otherwise|however|also|but)\b",
    re.IGNORECASE,
)
_HOW_CALCULATED = re.compile(
    r"怎么算|如何算|怎样算|怎么计算|如何计算|怎样计算|计算方法|计算公式|"
    r"\bhow (?:is|are|do|does|to)\b.*\b(?:calculated?|computed?|worked out)\b|\bformula\b",
    re.IGNORECASE,
)
_DIGIT = re.compile(r"\d|[一二两三四五六七八九十百千万]+\s*(?:[个位级节次天周月年元课小%]|分钟)")
_QUANTITY_QUESTION = re.compile(
    r"多少|几|多久|多长|多大|多高|\bhow (?:much|many|long|often)\b|\bwhat percentage\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class _Scorer:
    """How well a sentence answers the question (0: not at all)."""

    wanted: set[str]
    weight: dict[str, float]
    wants_quantity: bool
    wants_formula: bool
    last: int

    @classmethod
    def of(cls, question: str, wanted: set[str], candidates: list[Candidate]) -> _Scorer:
        # Rare terms say more than ones every sentence shares: weight by inverse frequency.
        frequency = {
            term: sum(term in c.terms or term in c.topic for c in candidates) for term in wanted
        }
        return cls(
            wanted=wanted,
            weight={t: math.log(1 + len(candidates) / df) for t, df in frequency.items() if df},
            wants_quantity=_QUANTITY_QUESTION.search(question) is not None,
            wants_formula=_HOW_CALCULATED.search(question) is not None,
            last=max(c.source for c in candidates),
        )

    def __call__(self, candidate: Candidate) -> float:
        shared = self.wanted & candidate.terms
        if shared:  # a sentence sharing nothing with the question is not lifted by its heading
            shared |= self.wanted & candidate.topic
        # fsum: exact, so the set's order (a per-process hash seed) can't tip a tie between
        # sentences of equal weight, and every bot process gives the same answer
        value = math.fsum(self.weight.get(term, 0.0) for term in shared)
        if value and self.wants_quantity and _DIGIT.search(candidate.full_text):
            value *= QUANTITY_BONUS
        if value and self.wants_formula and _FORMULA.search(candidate.full_text):
            value *= FORMULA_BONUS
        if candidate.example:
            value *= EXAMPLE_RATIO
        # Sources come best first: retrieval judged the whole passage, not just one sentence.
        last = self.last
        return value * (1 + RANK_PRIOR * (last - candidate.source) / max(last - 1, 1))


def choose_sentences(question: str, sources: Sequence[PromptSource]) -> list[Candidate]:
    """The best 1-3 quotes (with the context they need), the best one's source first; empty
    when none shares a term with the question."""
    wanted = match_terms(question) | _translated_terms(question, sources)
    candidates = quotable(sources)
    if not wanted or not candidates:
        return []
    score = _Scorer.of(question, wanted, candidates)
    ranked = sorted(
        ((score(c), c) for c in candidates), key=lambda sc: (-sc[0], sc[1].source, sc[1].position)
    )
    best = ranked[0][0]
    if best <= 0:
        return []
    chosen: list[Candidate] = []
    for value, candidate in ranked:
        if len(chosen) == MAX_SENTENCES or value < best * SECOND_CHOICE_RATIO:
            break
        if chosen and candidate.source != chosen[0].source and value < best * OTHER_SOURCE_RATIO:
            continue
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
    chosen = _with_context(chosen, candidates, wanted)
    # The source of the best quote leads; within a source, quotes keep their reading order.
    lead = {c.source: i for i, c in reversed(list(enumerate(chosen)))}
    chosen.sort(key=lambda c: (lead[c.source], c.position))
    return chosen


def _translated_terms(question: str, sources: Sequence[PromptSource]) -> set[str]:
    """The question's words in the other language when every source is written in that one
    (:mod:`rag.glossary`): every dictionary sense, since only the sentences' own words count.
    One source in the question's language (prose around a config block) is read as it is."""
    asked: Language = "zh" if has_ideograph(question) else "en"  # the pipeline detects once
    if not sources or any(detect_language(source.text) == asked for source in sources):
        return set()
    senses = glossary().candidates(question, "en" if asked == "zh" else "zh")
    return match_terms("\n".join(sense for word in senses for sense in word))


def _with_context(
    chosen: list[Candidate], candidates: list[Candidate], wanted: set[str]
) -> list[Candidate]:
    """The best quote with what it needs to read whole: the sentence before it when it opens
    with a reference to that one ("This…", "该…"), and the next one of its paragraph when that
    one goes on about it (it refers back, or names something the question names)."""
    if not chosen:
        return chosen
    best = chosen[0]
    taken = {c.position for c in chosen}
    extra: list[Candidate] = []
    before = candidates[best.position - 1] if best.position > 0 else None
    if (
        ANAPHOR.match(best.text)
        and before is not None
        and before.source == best.source
        and before.position not in taken
    ):
        extra.append(before)
    after = candidates[best.position + 1] if best.position + 1 < len(candidates) else None
    if (
        not best.items
        and after is not None
        and after.source == best.source
        and after.line - best.line <= 2  # its paragraph, or the next (past one blank line)
        and after.position not in taken
        and len(after.text) <= FOLLOWING_CHARS
        and _goes_on(after, best, wanted)
    ):
        extra.append(after)
    return chosen + extra


def _goes_on(after: Candidate, best: Candidate, wanted: set[str]) -> bool:
    """Whether the sentence after the best quote goes on about it: it refers back, names what
    the question names, or shares two terms with the quote ("退费金额 = … − 手续费。" then
    "手续费为可退金额的 5%，最低 50 元。")."""
    if ANAPHOR.match(after.text) or wanted & after.terms:
        return True
    return len((after.terms - after.topic) & (best.terms - best.topic)) >= SHARED_WITH_QUOTE


def _cited(sentence: str, n: int) -> str:
    """Put ``[n]`` right after the claim, before the closing punctuation (``…16 课时[1]。``)."""
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


def extractive_answer(question: str, sources: Sequence[PromptSource]) -> str:
    language = detect_language(question)
    chosen = choose_sentences(question, sources)
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


class ExtractiveChatModel(BaseChatModel):
    """A :class:`BaseChatModel` that needs no LLM: deterministic, offline, milliseconds."""

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
        text = extractive_answer(prompt.question, prompt.sources)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        # Pure CPU work of a few milliseconds: cheaper inline than in the default thread pool.
        return self._generate(messages, stop=stop, **kwargs)


def model_identity(model: BaseChatModel) -> str:
    """What identifies a model's answers in cache keys: changes when the answers would."""
    if isinstance(model, ExtractiveChatModel):
        return f"extractive/{EXTRACTIVE_VERSION}"
    name = getattr(model, "model_name", None) or getattr(model, "model", None) or ""
    base_url = getattr(model, "openai_api_base", None)
    if base_url is not None:
        host = re.sub(r"^[a-z]+://", "", str(base_url)).split("/", 1)[0]
        return f"openai-compatible:{host}/{name}"
    return f"{model._llm_type}/{name}" if name else model._llm_type
