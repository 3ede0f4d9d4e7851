"""What a question is before it is answered: its one spelling, and its stable id.

Every part that asks "is this the same question?" — the answer cache, reviewed answers,
withdrawals, votes, question records — reads the question through :func:`normalize_question`,
so they agree; the search reads it the same way, so punctuation never changes a decision.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from rag.language import CJK, CJK_PUNCTUATION

_LEADING_MENTION = re.compile(r"^@(?:[a-z0-9._\-]+|\S+(?=\s))\s*")  # "@citebot 问题"
_CJK = CJK_PUNCTUATION + CJK
_SPACE_IN_CJK = re.compile(rf"(?<=[{_CJK}])\s+(?=[{_CJK}])")
_SPACES = re.compile(r"\s+")


def _is_edge(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch).startswith("P")


def _strip_edges(text: str) -> str:
    start, end = 0, len(text)
    while start < end and _is_edge(text[start]):
        start += 1
    while end > start and _is_edge(text[end - 1]):
        end -= 1
    return text[start:end]


def normalize_question(question: str) -> str:
    """One spelling for trivially different phrasings of the same question.

    NFKC (full-width letters, digits and punctuation become half-width), a leading typed
    ``@bot`` removed, case folded, runs of whitespace made one space (none between CJK
    characters), surrounding whitespace and punctuation stripped: ``"口语课一共有几级？"``,
    ``"口语课一共有几级"`` and ``" 口语课一共有几级?"`` are one key. A platform's own mention
    markup (Slack's ``<@U123>``) is removed by that platform's edge before the question gets here.
    """
    text = unicodedata.normalize("NFKC", question).casefold()
    text = _SPACES.sub(" ", text).strip()
    text = _LEADING_MENTION.sub("", text)
    text = _SPACE_IN_CJK.sub("", text)
    return _strip_edges(text)


def question_digest(question: str, scope: str) -> str:
    """Stable id of a (normalised question, scope): keys and log lines, never the text.

    Normalised as the answer cache's key is, so a reviewed answer, a withdrawal and a cached
    answer agree on which questions are "the same"."""
    parts = "\x00".join((scope, normalize_question(question)))
    return hashlib.blake2b(parts.encode("utf-8"), digest_size=16).hexdigest()
