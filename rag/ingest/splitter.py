"""Documents -> sections -> chunks.

A **section** is the body under one heading path, exactly as langchain's
``ExperimentalMarkdownSyntaxTextSplitter`` cuts it: a contiguous substring of the document text
with its original whitespace, heading lines themselves excluded (the heading path travels as
metadata, never in the body). That splitter also cuts at horizontal rules and gives each fenced
code block its own section, so several sections may share one heading path; ``Chunk.section``
is the position in :func:`section_texts`, which tells them apart.

Each section is then cut into passages by ``RecursiveCharacterTextSplitter`` with paragraph,
line, Chinese and English sentence and clause separators, kept at the end of the sentence they
close. A chunk's ``text`` is ``section_text[start:start + len(text)]``; leading and trailing
whitespace is trimmed from chunks, never visible text. Sizes are in characters, which suits
Chinese (no spaces, one character carries about a word).
"""

from __future__ import annotations

import re

from langchain_text_splitters import (
    ExperimentalMarkdownSyntaxTextSplitter,
    RecursiveCharacterTextSplitter,
)

from rag.chunks import Chunk
from rag.ingest.documents import SourceDocument
from rag.lines import is_table_header, is_table_row

DEFAULT_CHUNK_SIZE = 500
"""Characters; a policy paragraph of a few sentences, one or two rules with their numbers.

Measured with ``python -m rag eval`` on cmrc2018-trial (BM25 + e5 fused by rank): 300/50 -> answer
Recall@1 0.896, @5 0.984, median first source 275 chars; 400/100 -> 0.936, 0.984, 363 chars;
500/100 -> 0.962, 0.990, 428 chars. Smaller chunks cut answers (a rule and its number) apart.
"""
DEFAULT_CHUNK_OVERLAP = 100
"""Characters; one or two short sentences, so a rule cut in two still reads whole in one chunk."""

SEPARATORS = [
    "\n\n",
    "\n",
    "。",
    "！",
    "？",
    "；",
    ". ",
    "! ",
    "? ",
    "; ",
    "，",
    ", ",
    " ",
    "",
]
"""Tried in order: paragraphs, lines, sentences (zh, en), clauses, words, then characters."""

_CLOSING_HASHES = re.compile(r"(^|\s+)#+$")
_HEADING_KEYS = [("#" * level, f"h{level}") for level in range(1, 7)]


def section_texts(doc: SourceDocument) -> list[tuple[tuple[str, ...], str]]:
    """(heading path, section text) for every section with visible text, in document order."""
    return [
        (_heading_path(part.metadata), part.page_content)
        for part in _SectionSplitter().split_text(doc.text)
    ]


class Splitter:
    """Cuts documents into chunks of at most ``chunk_size`` characters."""

    def __init__(
        self, chunk_size: int = DEFAULT_CHUNK_SIZE, chunk_overlap: int = DEFAULT_CHUNK_OVERLAP
    ) -> None:
        if chunk_size <= 0:
            msg = f"chunk_size ({chunk_size}) must be greater than 0"
            raise ValueError(msg)
        if chunk_overlap <= 0:
            msg = f"chunk_overlap ({chunk_overlap}) must be greater than 0"
            raise ValueError(msg)
        if chunk_overlap >= chunk_size:
            msg = f"chunk_overlap ({chunk_overlap}) must be smaller than chunk_size ({chunk_size})"
            raise ValueError(msg)
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self._passages = RecursiveCharacterTextSplitter(
            separators=SEPARATORS,
            keep_separator="end",
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
        )

    def __repr__(self) -> str:
        return f"Splitter(chunk_size={self.chunk_size}, chunk_overlap={self.chunk_overlap})"

    def split(self, doc: SourceDocument) -> list[Chunk]:
        """Chunks numbered 0.. across the whole document; no chunks for a headings-only one."""
        chunks: list[Chunk] = []
        for section, (heading, text) in enumerate(section_texts(doc)):
            for start, passage in _located(text, self._passages.split_text(text)):
                chunks.append(
                    Chunk(
                        source=doc.source,
                        text=passage,
                        n=len(chunks),
                        heading=heading,
                        start=start,
                        section=section,
                        title=doc.title,
                        link=doc.link,
                        doc_id=doc.doc_id,
                        about=doc.about,
                        table_head=table_head(text, start),
                        lifecycle=doc.lifecycle,
                    )
                )
        return chunks


def _located(text: str, passages: list[str]) -> list[tuple[int, str]]:
    """Each passage with its offset in ``text``.

    langchain's ``add_start_index`` searches from (previous end - overlap), so a sentence that
    repeats inside that window gets the earlier copy's offset. Passages advance through the
    text and each one reaches past the end of the one before it, so the right occurrence is the
    first one after the previous start that ends beyond the previous end.
    """
    located: list[tuple[int, str]] = []
    previous_start, previous_end = -1, 0
    for passage in passages:
        start = text.find(passage, previous_start + 1)
        while start != -1 and start + len(passage) <= previous_end:
            start = text.find(passage, start + 1)
        if start == -1:  # cannot happen for splitter output; never lose the passage over it
            start = max(text.find(passage), 0)
        located.append((start, passage))
        previous_start, previous_end = start, start + len(passage)
    return located


def table_head(section: str, start: int) -> str:
    """The header row and rule of the table a passage at ``start`` begins inside, when they lie
    before it (else ""): the rows above it up to the table's first, if that one is a header."""
    line_start = section.rfind("\n", 0, start) + 1
    line_end = section.find("\n", start)
    first_line = section[start:] if line_end == -1 else section[start:line_end]
    if section[line_start:start].strip() or not is_table_row(first_line):
        return ""  # it starts mid-line, or not at a table row
    above = section[:line_start].splitlines()
    top = len(above)
    while top > 0 and is_table_row(above[top - 1]):
        top -= 1
    if top + 1 < len(above) and is_table_header(above, top):
        return f"{above[top].strip()}\n{above[top + 1].strip()}"
    return ""


class _SectionSplitter(ExperimentalMarkdownSyntaxTextSplitter):
    """The upstream heading splitter, minus its loss of text at an unclosed code fence.

    Upstream returns "" for a fence that never closes, silently dropping the rest of the
    document; here the rest is kept as the code block's content. The splitter is stateful, so
    a fresh one is made per document.
    """

    def __init__(self) -> None:
        super().__init__(headers_to_split_on=_HEADING_KEYS, strip_headers=True)

    def _resolve_code_chunk(self, current_line: str, raw_lines: list[str]) -> str:
        chunk = current_line
        while raw_lines:
            raw_line = raw_lines.pop(0)
            chunk += raw_line
            if self._match_code(raw_line):
                break
        return chunk


def _heading_path(metadata: dict[str, str]) -> tuple[str, ...]:
    # Metadata holds one key per level present ("h1", "h3", ...); "Code" marks code blocks.
    levels = (metadata.get(key, "") for _, key in _HEADING_KEYS)
    return tuple(name for name in (_clean_heading(level) for level in levels) if name)


def _clean_heading(raw: str) -> str:
    # ATX headings may close with hashes ("## 退费 ##"); they are markup, not the name ("C#" is).
    return _CLOSING_HASHES.sub("", raw.strip()).strip()


__all__ = [
    "DEFAULT_CHUNK_OVERLAP",
    "DEFAULT_CHUNK_SIZE",
    "SEPARATORS",
    "Splitter",
    "section_texts",
]
