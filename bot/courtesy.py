"""Greetings and thanks: a courteous line in the asker's language, never the refusal sentence.

"hello", "你好" or "thanks" sent to the bot are no questions for the documents: searched, they
are refused ("这件事资料里没写…"), which reads as a bot that did not listen, and counted in
``rag report`` as an unanswered question nobody asked. They get one short line instead — a
greeting with what the bot does and an example, thanks with "you're welcome" — and never reach
the pipeline, so nothing is recorded. In a shared thread the bot already answered, thanks are
people closing the exchange (maybe to each other): no reply there
(:func:`rag.is_small_talk`, :mod:`bot.answering`).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from rag import Language, is_small_talk

Courtesy = Literal["greeting", "thanks", "ok"]

_GREETING = re.compile(
    r"你们好|你好呀|你好啊|你好|您好|大家好|哈喽|哈啰|嗨|在吗|在不在|早上好|上午好|中午好|下午好|晚上好|早安|"
    r"\b(?:hello|hallo|hullo|hi|hiya|hey|heya|howdy|greetings"
    r"|good (?:morning|afternoon|evening|day))\b",
    re.IGNORECASE,
)
_BESIDE_GREETING = re.compile(r"\b(?:there|everyone|all|folks|team|bot|citebot)\b", re.IGNORECASE)
"""Words that only count beside a greeting ("hi there", "hello everyone")."""
_THANKS = re.compile(r"谢|感谢|辛苦|\b(?:thanks?|thx|ty|cheers)\b", re.IGNORECASE)

_REPLIES: dict[Courtesy, dict[Language, str]] = {
    "greeting": {
        "zh": "你好！我只根据公司文档回答问题，并给出出处。直接问我就行，例如：「退费怎么算？」",
        "en": "Hello! I answer questions only from our documents, and cite them. "
        "Just ask, e.g. “How many days of annual leave do I get?”",
    },
    "thanks": {
        "zh": "不客气！还有问题随时问我。",
        "en": "You're welcome! Ask me anything else about our documents.",
    },
}


def courtesy(text: str) -> Courtesy | None:
    """What ``text`` is when it asks nothing: a greeting ("hi there", "你好！"), thanks ("谢谢",
    "thanks 👍"), an ok or emoji alone ("ok", "👍"); ``None`` for anything with a question in it
    ("你好，退费怎么算？")."""
    folded = unicodedata.normalize("NFKC", text).lower()
    rest = _BESIDE_GREETING.sub(" ", _GREETING.sub(" ", folded))
    if _GREETING.search(folded) and is_small_talk(rest):
        return "greeting"
    if not is_small_talk(folded):
        return None
    return "thanks" if _THANKS.search(folded) else "ok"


def courtesy_reply(kind: Courtesy, language: Language) -> str:
    """The line for ``kind``; an "ok" or an emoji on its own gets the greeting's short help."""
    return _REPLIES["thanks" if kind == "thanks" else "greeting"][language]
