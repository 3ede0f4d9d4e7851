"""The offline default chat model: quotes the source sentences that best match the question.

No LLM is involved. :class:`ExtractiveChatModel` reads the numbered sources and the question
back out of the messages :func:`rag.prompt.build_messages` wrote, scores every source sentence
against the question by shared terms (character bigrams for Chinese, words for English, weighted
by rarity), and writes the best one to three sentences verbatim, each with its ``[n]``. Because
every sentence is a verbatim quote of the source it cites, the citation checker passes by
construction; when no sentence shares a term with the question it says the refusal sentence.
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

from rag.language import Language, detect_language, is_ideograph
from rag.messages import refusal_text
from rag.prompt import PromptSource, parse_prompt

EXTRACTIVE_VERSION = "1"
"""Part of the model identity in cache keys: bump when the choice of sentences changes."""

MAX_SENTENCES = 3
SECOND_CHOICE_RATIO = 0.5
"""A further sentence is quoted only when it scores at least this share of the best one."""
QUANTITY_BONUS = 1.5
"""For 多少/几/how much questions, sentences that contain a number are what the asker wants."""

_SENTENCE_END = re.compile(r"[。！？；!?]+[”’」』）)\"']*|\.(?=\s|$)[”’\"')]*")
_TERMINAL = re.compile(r"[。！？；!?.]+[”’」』）)\"']*$")
_LIST_MARKER = re.compile(r"^(?:[-*+•>]+|\d{1,2}[.)、]|#{1,6})\s+")
_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")
_DIGIT = re.compile(r"\d|[一二两三四五六七八九十百千万]+\s*(?:[个位级节次天周月年元课小%]|分钟)")
_QUANTITY_QUESTION = re.compile(
    r"多少|几|多久|多长|多大|多高|\bhow (?:much|many|long|often)\b|\bwhat percentage\b",
    re.IGNORECASE,
)
# Question words and particles separate content words instead of forming bigrams with them.
_ZH_QUESTION_WORDS = re.compile(
    r"多少|什么|怎么|怎样|如何|为什么|哪些|哪个|哪里|是否|能否|可以|请问|多久|多长"
)
_ZH_STOP_CHARS = frozenset("的了吗呢吧啊呀么我你您他她它们这那是和与及或也都就还")
_EN_STOPWORD_TEXT = (
    "a an the of to in on at for from by with and or but is are was were be been being do does "
    "did have has had can could would should will shall may might must i you he she it we they "
    "me my your our their this that these those what which who whom whose when where why how "
    "there here if then than so not no any some about into as up out get"
)
_EN_STOPWORDS = frozenset(_EN_STOPWORD_TEXT.split())


def split_sentences(text: str) -> list[str]:
    """Sentences (and list items, table rows) as exact substrings of ``text``."""
    sentences: list[str] = []
    for line in text.splitlines():
        start = 0
        pieces: list[str] = []
        for match in _SENTENCE_END.finditer(line):
            pieces.append(line[start : match.end()])
            start = match.end()
        pieces.append(line[start:])
        for piece in pieces:
            sentence = _LIST_MARKER.sub("", piece.strip())
            if any(char.isalnum() for char in sentence):
                sentences.append(sentence)
    return sentences


def _chinese_terms(run: str) -> set[str]:
    terms: set[str] = set()
    for part in re.split("[" + "".join(_ZH_STOP_CHARS) + "]", _ZH_QUESTION_WORDS.sub(" ", run)):
        part = part.strip()
        if len(part) == 1:
            terms.add(part)
        terms.update(part[i : i + 2] for i in range(len(part) - 1))
    return terms


def terms_of(text: str) -> set[str]:
    """Content terms: CJK character bigrams (unigrams for lone characters) and English words."""
    lowered = text.lower()
    terms: set[str] = set()
    run: list[str] = []
    for char in lowered + "\n":
        if is_ideograph(char):
            run.append(char)
        elif run:
            terms |= _chinese_terms("".join(run))
            run = []
    for word in _WORD.findall(lowered):
        if word in _EN_STOPWORDS:
            continue
        # "refunds" should find "refund": a crude plural fold is enough for overlap scoring.
        terms.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return terms


@dataclass(frozen=True, slots=True)
class _Candidate:
    source: int
    position: int
    text: str
    terms: frozenset[str]


def _candidates(sources: Sequence[PromptSource]) -> list[_Candidate]:
    return [
        _Candidate(source.n, position, sentence, frozenset(terms_of(sentence)))
        for source in sources
        for position, sentence in enumerate(split_sentences(source.text))
    ]


def choose_sentences(question: str, sources: Sequence[PromptSource]) -> list[tuple[int, str]]:
    """The best 1-3 ``(source number, sentence)`` pairs in reading order; empty = no overlap."""
    wanted = terms_of(question)
    candidates = _candidates(sources)
    if not wanted or not candidates:
        return []
    # Rare terms say more than ones every sentence shares: weight by inverse sentence frequency.
    frequency = {term: sum(term in c.terms for c in candidates) for term in wanted}
    weight = {t: math.log(1 + len(candidates) / df) for t, df in frequency.items() if df}
    wants_quantity = _QUANTITY_QUESTION.search(question) is not None

    def score(candidate: _Candidate) -> float:
        value = sum(weight.get(term, 0.0) for term in wanted & candidate.terms)
        if value and wants_quantity and _DIGIT.search(candidate.text):
            value *= QUANTITY_BONUS
        return value

    ranked = sorted(
        ((score(c), c) for c in candidates), key=lambda sc: (-sc[0], sc[1].source, sc[1].position)
    )
    best = ranked[0][0]
    if best <= 0:
        return []
    chosen = [c for s, c in ranked[:MAX_SENTENCES] if s >= best * SECOND_CHOICE_RATIO]
    chosen.sort(key=lambda c: (c.source, c.position))
    return [(c.source, c.text) for c in chosen]


def _cited(sentence: str, n: int) -> str:
    """Put ``[n]`` right after the claim, before the closing punctuation (``…16 课时[1]。``)."""
    language = detect_language(sentence)
    terminal = _TERMINAL.search(sentence)
    body, end = (sentence[: terminal.start()], terminal.group()) if terminal else (sentence, "")
    space = " " if body[-1:].isascii() and body[-1:].isalnum() else ""
    return f"{body}{space}[{n}]{end or ('。' if language == 'zh' else '.')}"


_LEAD_IN: dict[Language, str] = {
    "zh": "资料原文如下：",
    "en": "From our documents, as written: ",
}
"""Only when the quotes are in the other language than the question; no quantities, no claims."""


def extractive_answer(question: str, sources: Sequence[PromptSource]) -> str:
    language = detect_language(question)
    chosen = choose_sentences(question, sources)
    if not chosen:
        return refusal_text(language)
    quotes = [_cited(sentence, n) for n, sentence in chosen]
    quoted_language = detect_language("".join(sentence for _, sentence in chosen))
    text = ("" if quoted_language == "zh" else " ").join(quotes)
    return text if quoted_language == language else _LEAD_IN[language] + text


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
