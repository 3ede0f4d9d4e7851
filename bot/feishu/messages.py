"""``im.message.receive_v1`` -> the question to answer, or ``None`` when it is not for us.

Answered: every text or post message in a p2p chat; in a group, only a message that @-mentions
the bot itself — recognised by its open_id from the bot info API, never by display name (anyone
can be called "citebot"). Not answered: messages from bots and apps (including our own), other
message types (images, files, cards, stickers).

In the text, the mention placeholders Feishu puts there (``@_user_1``) become the mentioned
person's name, so "ask @_user_2 about leave" reads "ask 王芳 about leave"; the bot's own mention
and ``@_all`` are dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

TEXT_TYPES = frozenset({"text", "post"})
ALL = "@_all"
_PLACEHOLDER = re.compile(r"@_(?:user_\d+|all)")


@dataclass(frozen=True, slots=True)
class Asked:
    event_id: str
    message_id: str
    chat_id: str
    chat_type: str
    """``p2p`` or ``group``."""
    sender: str
    """The asker's open_id."""
    text: str
    """The question as the asker would read it (mentions resolved, whitespace tidied)."""
    root_id: str = ""
    """The thread's first message when the question was asked in a thread."""


def _mention_names(mentions: Iterable[Mapping[str, Any]], bot_open_id: str) -> dict[str, str]:
    """Placeholder -> what to show: the person's name, or nothing for the bot and @all."""
    names = {ALL: "", "all": "", bot_open_id: ""}
    for mention in mentions:
        key = str(mention.get("key", ""))
        open_id = str((mention.get("id") or {}).get("open_id", ""))
        names[key] = "" if open_id == bot_open_id else str(mention.get("name") or "")
    return names


def _resolve(text: str, names: Mapping[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda found: names.get(found.group(0), found.group(0)), text)


def _post_text(content: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """A post's title and paragraphs as plain text (some clients wrap it in a locale key)."""
    if "content" not in content and len(content) == 1:
        inner = next(iter(content.values()))
        content = inner if isinstance(inner, dict) else {}
    lines = [str(content.get("title") or "")]
    for paragraph in content.get("content") or []:
        parts: list[str] = []
        for element in paragraph if isinstance(paragraph, list) else []:
            tag = element.get("tag")
            if tag in {"text", "a"}:
                parts.append(str(element.get("text", "")))
            elif tag == "at":
                key = str(element.get("user_id", ""))
                parts.append(names.get(key, str(element.get("user_name", ""))))
            # Unknown tags (img, media, emotion, code_block) carry no question text.
        lines.append("".join(parts))
    return "\n".join(line for line in lines if line.strip())


def _tidy(text: str) -> str:
    lines = [" ".join(line.split()) for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


def question(payload: Mapping[str, Any], bot_open_id: str) -> Asked | None:
    """The question in a message event, or ``None`` when the bot should stay silent."""
    event = payload.get("event") or {}
    sender = event.get("sender") or {}
    message = event.get("message") or {}
    sender_id = str((sender.get("sender_id") or {}).get("open_id", ""))
    if sender.get("sender_type") != "user" or not sender_id or sender_id == bot_open_id:
        return None
    if message.get("message_type") not in TEXT_TYPES:
        return None
    chat_type = str(message.get("chat_type", ""))
    mentions = message.get("mentions") or []
    if chat_type != "p2p":
        mentioned = {str((m.get("id") or {}).get("open_id", "")) for m in mentions}
        if bot_open_id not in mentioned:
            return None
    try:
        content = json.loads(message.get("content") or "{}")
    except ValueError:
        return None
    if not isinstance(content, dict):
        return None
    names = _mention_names(mentions, bot_open_id)
    if message.get("message_type") == "text":
        text = _resolve(str(content.get("text", "")), names)
    else:
        text = _post_text(content, names)
    return Asked(
        event_id=str((payload.get("header") or {}).get("event_id", "")),
        message_id=str(message.get("message_id", "")),
        chat_id=str(message.get("chat_id", "")),
        chat_type=chat_type,
        sender=sender_id,
        text=_tidy(text),
        root_id=str(message.get("root_id") or ""),
    )
