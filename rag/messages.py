"""The fixed sentences the answer core gives people, keyed by language.

They are deliberately blunt: a refusal with softening words ("大概", "maybe") invites the asker
to push ("那大概呢？") and the model to guess. The refusal sentence is also what the system
prompt tells the model to say, so :func:`is_refusal_text` recognises the model's version of it.
"""

from __future__ import annotations

import unicodedata

from rag.language import Language
from rag.markers import without_markers

REFUSAL: dict[Language, str] = {
    "zh": "这件事资料里没写，我不能替你编，请转人工。",
    "en": "Our documents don't cover this, so I can't answer it — please ask a colleague.",
}

MODEL_FAILURE: dict[Language, str] = {
    "zh": "出了点问题，请稍后再试。",
    "en": "Something went wrong, please try again in a moment.",
}

WITHDRAWN: dict[Language, str] = {
    "zh": "两位同事认为这个回答有误（👎），已停止自动回答；请核对后再决定是否采用。",
    "en": "Two people marked this answer wrong (👎), so it is no longer given automatically; "
    "check it before it is used again.",
}
"""The problem a reviewer sees on the draft of an answer that votes withdrew."""

_REFUSAL_CORE: dict[Language, str] = {
    "zh": "这件事资料里没写",
    "en": "Our documents don't cover this",
}
"""The clause that carries the refusal; a model that drops the rest still refused."""

MAX_WRAPPER_CHARS = 30
"""How much text (letters and digits only) may surround the refusal sentence in a reply that
still counts as a refusal: room for "回答：" or 'My answer is "…"', not for a real answer."""


def refusal_text(language: Language) -> str:
    return REFUSAL[language]


def model_failure_text(language: Language) -> str:
    return MODEL_FAILURE[language]


def withdrawn_problem(language: Language) -> str:
    return WITHDRAWN[language]


def _letters(text: str) -> str:
    """Only letters and digits, case-folded: punctuation, quotes and spacing don't matter."""
    folded = unicodedata.normalize("NFKC", without_markers(text, "")).casefold()
    return "".join(char for char in folded if char.isalnum())


_REFUSAL_LETTERS = tuple(_letters(text) for text in REFUSAL.values())
_CORE_LETTERS = tuple(_letters(text) for text in _REFUSAL_CORE.values())


def is_refusal_text(text: str) -> bool:
    """True when a reply is essentially the refusal sentence (either language).

    Tolerates punctuation, whitespace, citation markers and a short wrapper around the sentence
    (the model quoting it); an answer that merely mentions 人工 or refuses one part of a longer
    answer is not a refusal.
    """
    letters = _letters(text)
    if not letters:
        return False
    for sentence in (*_REFUSAL_LETTERS, *_CORE_LETTERS):
        if sentence in letters and len(letters) - len(sentence) <= MAX_WRAPPER_CHARS:
            return True
    return False
