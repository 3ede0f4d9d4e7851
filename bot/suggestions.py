"""Suggested prompts for a person opening the bot's DM, drawn from the knowledge base's
headings (platform-neutral): one per document, from the documents the person may see.

A heading such as ``三、退费计算口径`` becomes the prompt ``退费计算口径`` asking
``关于「退费计算口径」，文档是怎么说的？`` — a question the documents can answer, in their language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from rag import Chunk, detect_language

MAX_PROMPTS = 4
"""Slack shows at most four suggested prompts."""
MAX_TITLE = 40
_ORDINAL = re.compile(
    r"^\s*(?:[一二三四五六七八九十百]+、|\d+(?:\.\d+)*[.、)]?|[（(][^)）]{1,3}[)）])\s*"
)


def heading_of(chunk: Chunk) -> str:
    """The passage's own heading without its ordinal (``三、退费计算口径`` -> ``退费计算口径``)."""
    heading = chunk.heading[-1] if chunk.heading else chunk.title
    return _ORDINAL.sub("", heading).strip()


def prompt_for(heading: str) -> tuple[str, str]:
    """(title, message) of a suggested prompt about ``heading``."""
    if detect_language(heading) == "zh":
        return heading[:MAX_TITLE], f"关于「{heading}」，文档是怎么说的？"
    return heading[:MAX_TITLE], f"What do our documents say about “{heading}”?"


def suggested_prompts(
    chunks: Iterable[Chunk], allows: Callable[[str], bool], limit: int = MAX_PROMPTS
) -> list[tuple[str, str]]:
    """Up to ``limit`` prompts, one per document ``allows`` lets the person see."""
    prompts: list[tuple[str, str]] = []
    documents: set[str] = set()
    for chunk in chunks:
        if chunk.source in documents or not allows(chunk.source):
            continue
        heading = heading_of(chunk)
        if not heading or (heading == chunk.title and len(chunk.heading) > 1):
            continue
        documents.add(chunk.source)
        prompts.append(prompt_for(heading))
        if len(prompts) == limit:
            break
    return prompts
