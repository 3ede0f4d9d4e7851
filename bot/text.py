"""Slack message text -> the plain question the answer core sees.

Slack writes mentions, channels and links as ``<…>`` tokens and escapes ``&``, ``<``, ``>``
(docs.slack.dev/messaging/formatting-message-text). Left in, ``<@U0BOT>`` and URLs become
search terms and the cache key of "<@U0BOT> 退费怎么算" differs from a DM's "退费怎么算".
"""

from __future__ import annotations

import re
import unicodedata

_USER = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")
_CHANNEL = re.compile(r"<#[CG][A-Z0-9]+(?:\|([^>]*))?>")
_SPECIAL = re.compile(r"<!(?:subteam\^[A-Z0-9]+|[a-z]+)(?:\^[^|>]*)*(?:\|([^>]*))?>")
_LINK = re.compile(r"<((?:https?|mailto|tel):[^|>]+)(?:\|([^>]*))?>")
_SPACES = re.compile(r"[ \t\u00a0\u3000]+")
_BLANK_LINES = re.compile(r"\n{3,}")


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _link(match: re.Match[str]) -> str:
    url, label = match.group(1), match.group(2)
    if label:
        return label
    return url.removeprefix("mailto:").removeprefix("tel:")


def _printable(text: str) -> str:
    """Control characters out (newline and tab stay); they confuse retrieval and logs."""
    return "".join(
        char for char in text if char in "\n\t" or unicodedata.category(char) not in {"Cc", "Cf"}
    )


def clean_question(text: str) -> str:
    """Mentions removed, ``<#C…|name>`` -> ``#name``, ``<url|text>`` -> ``text``,
    ``<url>`` -> ``url``, entities unescaped, whitespace tidied."""
    text = _USER.sub(" ", text)
    text = _CHANNEL.sub(lambda m: f"#{m.group(1)}" if m.group(1) else " ", text)
    text = _SPECIAL.sub(lambda m: m.group(1) or " ", text)
    text = _LINK.sub(_link, text)
    text = _printable(_unescape(text))
    lines = [_SPACES.sub(" ", line).strip() for line in text.splitlines()]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def cut(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters, and whether anything was cut."""
    if limit < 1:
        msg = f"limit ({limit}) must be at least 1"
        raise ValueError(msg)
    if len(text) <= limit:
        return text, False
    return text[:limit].rstrip(), True
