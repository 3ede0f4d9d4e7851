"""Slack's text format both ways: Markdown the model writes -> mrkdwn, a Slack message ->
the plain question the answer core sees, and splitting text under Slack's limits.

mrkdwn is not Markdown: bold is ``*b*``, italics ``_i_``, links ``<url|text>``, no headings,
and ``&``, ``<``, ``>`` must be escaped (docs.slack.dev/messaging/formatting-message-text).
Code spans and blocks are kept as they are (escaped only). Splitting prefers paragraph, line,
sentence and word boundaries and never cuts inside an ``&amp;`` entity or a ``<…>`` link, so
the pieces joined are exactly the input.

Slack writes mentions, channels and links as ``<…>`` tokens and escapes ``&``, ``<``, ``>``.
Left in, ``<@U0BOT>`` and URLs would become search terms and the cache key of
"<@U0BOT> 退费怎么算" would differ from a DM's "退费怎么算": :func:`clean_question` removes them
here, at the edge, before the question reaches the answer core.
"""

from __future__ import annotations

import re
import unicodedata

_CODE = re.compile(r"```.*?```|`[^`\n]+`", re.DOTALL)
_LINK = re.compile(r"\[([^\]\n]+)\]\(((?:https?://|mailto:)[^\s)]+)\)")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_ITALIC = re.compile(r"(?<![*A-Za-z0-9])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![*A-Za-z0-9])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_BULLET = re.compile(r"^(\s*)[-*+]\s+", re.MULTILINE)
_BOLD_MARK = "\x00B\x00"
_CODE_MARK = "\x00C{}\x00"
_USER = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")
_CHANNEL = re.compile(r"<#[CG][A-Z0-9]+(?:\|([^>]*))?>")
_SPECIAL = re.compile(r"<!(?:subteam\^[A-Z0-9]+|[a-z]+)(?:\^[^|>]*)*(?:\|([^>]*))?>")
_URL = re.compile(r"<((?:https?|mailto|tel):[^|>]+)(?:\|([^>]*))?>")
_SPACES = re.compile(r"[ \t\u00a0\u3000]+")
_BLANK_LINES = re.compile(r"\n{3,}")
_BREAKS = ("\n\n", "\n", "。", "！", "？", ". ", "! ", "? ", "；", "; ", "，", ", ", " ")


def escape(text: str) -> str:
    """Slack's three control characters, ``&`` first; nothing else."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def unescape(text: str) -> str:
    """:func:`escape` undone (Slack hands message text back escaped)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _url(match: re.Match[str]) -> str:
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
    text = _URL.sub(_url, text)
    text = _printable(unescape(text))
    lines = [_SPACES.sub(" ", line).strip() for line in text.splitlines()]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def _bold(match: re.Match[str]) -> str:
    inner = match.group(1) or match.group(2)
    return f"{_BOLD_MARK}{inner}{_BOLD_MARK}"


def to_mrkdwn(markdown: str) -> str:
    """Escaped mrkdwn with bold, italics, strike-through, headings, bullets and links
    converted; ``[n]`` citation markers untouched."""
    codes: list[str] = []

    def keep_code(match: re.Match[str]) -> str:
        codes.append(escape(match.group(0)))
        return _CODE_MARK.format(len(codes) - 1)

    text = _CODE.sub(keep_code, markdown)
    text = escape(text)
    text = _LINK.sub(lambda m: f"<{m.group(2)}|{m.group(1).replace('|', '¦')}>", text)
    text = _HEADING.sub(lambda m: f"{_BOLD_MARK}{m.group(1)}{_BOLD_MARK}", text)
    text = _BOLD.sub(_bold, text)
    text = _ITALIC.sub(r"_\1_", text)
    text = _STRIKE.sub(r"~\1~", text)
    text = _BULLET.sub(lambda m: f"{m.group(1)}• ", text)
    text = text.replace(_BOLD_MARK, "*")
    for position, code in enumerate(codes):
        text = text.replace(_CODE_MARK.format(position), code)
    return text


def _safe_end(text: str, end: int) -> int:
    """Move ``end`` back so it does not fall inside an ``&…;`` entity or a ``<…>`` token."""
    opening = text.rfind("<", 0, end)
    if opening != -1 and text.find(">", opening, end) == -1 and opening > 0:
        end = opening
    amp = text.rfind("&", max(0, end - 5), end)
    if amp != -1 and ";" not in text[amp:end]:
        end = amp
    return end


def split_text(text: str, limit: int) -> list[str]:
    """Pieces of at most ``limit`` characters whose concatenation is ``text``."""
    if limit < 16:
        msg = f"limit ({limit}) must be at least 16"
        raise ValueError(msg)
    pieces: list[str] = []
    rest = text
    while len(rest) > limit:
        window = rest[:limit]
        end = 0
        for mark in _BREAKS:
            found = window.rfind(mark)
            if found > limit // 3:
                end = found + len(mark)
                break
        end = _safe_end(rest, end or limit)
        if end <= 0:
            end = limit
        pieces.append(rest[:end])
        rest = rest[end:]
    if rest or not pieces:
        pieces.append(rest)
    return pieces
