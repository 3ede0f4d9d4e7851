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


_ZH_LAPSED = {
    "superseded": "已被取代",
    "deprecated": "已废止",
    "archived": "已归档",
    "expired": "已过期",
}
_EN_LAPSED = {
    "superseded": "was superseded",
    "deprecated": "was withdrawn",
    "archived": "was archived",
    "expired": "expired",
}


def lapsed_text(
    language: Language,
    *,
    title: str,
    status: str,
    since: str,
    successor: str = "",
    ended: bool = True,
) -> str:
    """What the asker is told when the only document that answers is not in force: which one,
    that it no longer applies (or not yet: ``status`` ``upcoming``, ``since`` its first day),
    since when (``ended``: ``since`` is the day it ended; else only when the document was last
    updated), and its successor when it names one. Never the old rule itself."""
    if language == "zh":
        when = f"（文件最后更新于 {since}）" if since else ""
        when = f"（{since} 起）" if ended and since else when
        if status == "upcoming":
            return (
                f"资料中只有《{title}》提到这件事，但它自 {since} 起才生效，目前尚未生效；"
                "我不能按尚未生效的规定回答，请转人工确认现行规定。"
            )
        after = f"，现行文件为《{successor}》" if successor else ""
        return (
            f"资料中只有《{title}》提到这件事，但它{_ZH_LAPSED.get(status, '已失效')}{when}，"
            f"不再有效{after}。我不能按已失效的规定回答，请转人工确认现行规定。"
        )
    if status == "upcoming":
        return (
            f"The only document that covers this, “{title}”, takes effect on {since} and is "
            "not in force yet, so I can't answer from it — please ask a colleague for the "
            "current rule."
        )
    how = _EN_LAPSED.get(status, "is no longer in force")
    when = f" on {since}" if ended and since else f" (last updated {since})" if since else ""
    after = f"; its successor is “{successor}”" if successor else ""
    return (
        f"The only document that covers this, “{title}”, is no longer in force: it {how}"
        f"{when}{after}. I can't answer from a rule that no longer applies — please ask a "
        "colleague for the current one."
    )
