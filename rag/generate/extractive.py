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
from rag.language import Language, detect_language
from rag.lines import is_list_item, is_table_header, is_table_row, is_table_rule, without_marker
from rag.messages import refusal_text
from rag.reading import match_terms, sentence_pieces

EXTRACTIVE_VERSION = "5"
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
MAX_LIST_ITEMS = 8
"""How many list items or table rows a quoted lead-in ("依次为：") brings along."""

_TERMINAL = re.compile(r"[。！？；!?.]+[”’」』）)\"']*$")
_LEAD_IN = re.compile(r"[：:]$")
_FORMULA = re.compile(r"[=×÷]")
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


def split_sentences(text: str) -> list[str]:
    """Sentences (and list items, table rows) as exact substrings of ``text``."""
    sentences: list[str] = []
    for line in text.splitlines():
        for piece in sentence_pieces(line):
            sentence = without_marker(piece.strip())
            if any(char.isalnum() for char in sentence):
                sentences.append(sentence)
    return sentences


@dataclass(frozen=True, slots=True)
class _Candidate:
    source: int
    position: int
    text: str
    terms: frozenset[str]
    items: tuple[str, ...] = ()
    """The list items or table rows a lead-in sentence (ending in a colon) introduces."""

    @property
    def full_text(self) -> str:
        return "\n".join((self.text, *self.items))


def _list_after(lines: list[str], start: int) -> tuple[str, ...]:
    """The list items or table rows from ``lines[start]`` on, blank lines before them skipped."""
    items: list[str] = []
    for line in lines[start:]:
        stripped = line.strip()
        if not stripped:
            if items:
                break
            continue
        if not (is_list_item(stripped) or is_table_row(stripped)):
            break
        if not is_table_rule(stripped):
            items.append(stripped)
        if len(items) == MAX_LIST_ITEMS:
            break
    return tuple(items)


def _logical_lines(text: str) -> list[str]:
    """Lines with soft-wrapped continuations joined, so a wrapped sentence is quoted whole.

    A line continues the previous one when neither is blank, a heading, a table row or a new
    list item and the previous one doesn't end a sentence or introduce a list.
    """
    lines: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        previous = lines[-1] if lines else ""
        continues = (
            line
            and previous
            and not is_list_item(line)
            and not line.startswith(("#", "|"))
            and not previous.startswith(("#", "|"))
            and not _TERMINAL.search(previous)
            and not _LEAD_IN.search(previous)
        )
        if continues:
            space = " " if previous[-1].isascii() and line[0].isascii() else ""
            lines[-1] = previous + space + line
        else:
            lines.append(line)
    return lines


def _candidates(sources: Sequence[PromptSource]) -> list[_Candidate]:
    """Every sentence of every source; a lead-in or table header keeps the rows under it."""
    candidates: list[_Candidate] = []
    for source in sources:
        lines = _logical_lines(source.text)
        for number, line in enumerate(lines):
            sentences = split_sentences(line)
            for index, sentence in enumerate(sentences):
                last = index == len(sentences) - 1
                introduces = _LEAD_IN.search(sentence) or is_table_header(lines, number)
                items = _list_after(lines, number + 1) if last and introduces else ()
                terms = match_terms("\n".join((sentence, *items)))
                candidates.append(
                    _Candidate(source.n, len(candidates), sentence, frozenset(terms), items)
                )
    return candidates


def choose_sentences(question: str, sources: Sequence[PromptSource]) -> list[_Candidate]:
    """The best 1-3 quotes in reading order; empty when none shares a term with the question."""
    wanted = match_terms(question)
    candidates = _candidates(sources)
    if not wanted or not candidates:
        return []
    # Rare terms say more than ones every sentence shares: weight by inverse sentence frequency.
    frequency = {term: sum(term in c.terms for c in candidates) for term in wanted}
    weight = {t: math.log(1 + len(candidates) / df) for t, df in frequency.items() if df}
    wants_quantity = _QUANTITY_QUESTION.search(question) is not None
    wants_formula = _HOW_CALCULATED.search(question) is not None
    last = max(c.source for c in candidates)

    def score(candidate: _Candidate) -> float:
        value = sum(weight.get(term, 0.0) for term in wanted & candidate.terms)
        if value and wants_quantity and _DIGIT.search(candidate.full_text):
            value *= QUANTITY_BONUS
        if value and wants_formula and _FORMULA.search(candidate.full_text):
            value *= FORMULA_BONUS
        # Sources come best first: retrieval judged the whole passage, not just one sentence.
        return value * (1 + RANK_PRIOR * (last - candidate.source) / max(last - 1, 1))

    ranked = sorted(
        ((score(c), c) for c in candidates), key=lambda sc: (-sc[0], sc[1].source, sc[1].position)
    )
    best = ranked[0][0]
    if best <= 0:
        return []
    chosen: list[_Candidate] = []
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
    chosen.sort(key=lambda c: (c.source, c.position))
    return chosen


def _cited(sentence: str, n: int) -> str:
    """Put ``[n]`` right after the claim, before the closing punctuation (``…16 课时[1]。``)."""
    language = detect_language(sentence)
    terminal = _TERMINAL.search(sentence)
    body, end = (sentence[: terminal.start()], terminal.group()) if terminal else (sentence, "")
    space = " " if body[-1:].isascii() and body[-1:].isalnum() else ""
    return f"{body}{space}[{n}]{end or ('。' if language == 'zh' else '.')}"


_LEAD_IN_TEXT: dict[Language, str] = {
    "zh": "资料原文如下：",
    "en": "From our documents, as written: ",
}
"""Only when the quotes are in the other language than the question; no quantities, no claims."""


def _quote(candidate: _Candidate) -> str:
    if not candidate.items:
        return _cited(candidate.text, candidate.source)
    # "…依次为[1]：" then the list verbatim: the marker stays on the sentence it belongs to.
    if _LEAD_IN.search(candidate.text):
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
