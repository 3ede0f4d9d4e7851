"""How the offline answerer reads the parts of a question in a sentence: the stems of its
English words, the terms of its Chinese, whether it names a compared thing or speaks of a
list's topic (:mod:`rag.generate.composed`, :mod:`rag.generate.listed`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.generate.quotable import Candidate
from rag.language import is_ideograph
from rag.reading import EN_STOPWORDS, STOP_CHARS, english_stems, match_terms


def content(text: str) -> set[str]:
    """A text's terms: Chinese bigrams (:func:`rag.reading.match_terms`) or English stems."""
    return match_terms(text) if any(is_ideograph(ch) for ch in text) else terms(text)


def topic_terms(topic: str) -> set[str]:
    """What a sentence must hold to be about the topic: its English stems, or its content
    ideographs ("假期" -> 假, 期: 年假, 病假 and 婚假 all hold 假)."""
    if any(is_ideograph(ch) for ch in topic):
        return {ch for ch in topic if is_ideograph(ch) and ch not in STOP_CHARS}
    return terms(topic)


def terms(text: str) -> set[str]:
    """The stems of a text's English words, stopwords left out."""
    words = re.findall(r"[a-z][a-z'-]+", text.lower())
    return set(english_stems(w for w in words if w not in EN_STOPWORDS))


def about(candidate: Candidate, topic: set[str]) -> bool:
    """Whether a sentence (or its heading, in English) speaks of the ``topic_terms``."""
    if not topic:
        return True
    text = candidate.full_text.lower()
    if all(len(t) == 1 and is_ideograph(t) for t in topic):
        return any(t in text for t in topic)
    return bool(topic & (terms(text) | candidate.topic))


def names(text: str, thing: str, things: Sequence[str]) -> bool:
    """Whether ``text`` names ``thing``: all of it, or (English) every word stem of it that
    tells it from the other ``things`` ("Pro" of "Pro plan" beside "Team plan")."""
    if thing.casefold() in text.casefold():
        return True
    if any(is_ideograph(ch) for ch in thing):
        return False
    own = own_terms(thing, things)
    return bool(own) and own <= terms(text)


def own_terms(thing: str, things: Sequence[str]) -> set[str]:
    """The word stems of ``thing`` not every one of ``things`` holds ("pro" of "Pro plan"
    beside "Team plan")."""
    shared = terms(thing)
    for other in things:
        shared &= terms(other)
    return terms(thing) - shared
