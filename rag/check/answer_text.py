"""How an answer is read: its sentences, with the citations each carries and its paragraph.

Citation markers are read by :mod:`rag.markers` (``[1]``, ``[1, 2]``, ``[1-3]``, ``【1】``…),
sentence ends and content terms by :mod:`rag.reading`. Models put markers before or after the
full stop: a marker that opens a piece ("…3420 元。[1]") belongs to the sentence before it.
Paragraphs are separated by blank lines; every list item, heading, quote or table row starts
its own. A fenced code block (a configuration file, a command) is one unit: its lines are
code, not sentences or list items, and brackets in it are code, not citations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from rag.lines import LEADING_MARKER, is_table_header, starts_block, without_marker
from rag.markers import MARKER, cited_numbers
from rag.reading import sentence_pieces

_LEADING_MARKERS = re.compile(rf"^\s*(?:{MARKER.pattern}\s*)+")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    """As written, markers included (what a reviewer is shown)."""
    plain: str
    """Markers removed, list marker stripped: what numbers and terms are read from."""
    cites: tuple[int, ...]
    paragraph: int
    """Sentences of one paragraph share citations placed after them (blank lines, list items,
    headings and table rows start a new paragraph)."""
    whole_line: bool
    block: int = 0
    """Lines between blank lines: a cited lead-in covers the list or table under it."""
    item: bool = False
    """The line is a list item, heading, quote or table row."""
    header: bool = False
    """The line is a table's header row (the column names above its "|---|" line)."""
    code: bool = False
    """A fenced code block, fences included in ``text`` and left out of ``plain``: covered
    like a list under its lead-in, or by the cited sentence right after it."""

    @property
    def heading(self) -> bool:
        """A Markdown heading or a table's header row: a label, not a claim."""
        return self.header or self.text.startswith("#")

    @property
    def lead_in(self) -> bool:
        return not self.code and self.plain.endswith((":", "："))  # "node_listen:" is a key


def _pieces(line: str) -> list[str]:
    merged: list[str] = []
    for piece in sentence_pieces(line):
        leading = _LEADING_MARKERS.match(piece)
        if leading and merged:  # "…3420 元。[1]": the marker belongs to the sentence before it
            merged[-1] += leading.group()
            piece = piece[leading.end() :]
        if piece.strip():
            merged.append(piece)
    return merged


def sentences(text: str) -> list[Sentence]:
    """The sentences of ``text`` in order, each with the markers it carries."""
    found: list[Sentence] = []
    paragraph = block = 0
    lines = text.splitlines()
    fence_end = -1  # lines up to here belong to the code block already read
    for number, line in enumerate(lines):
        if number <= fence_end:
            continue
        if fence := _FENCE.match(line):
            fence_end = _closing_fence(lines, number, fence.group(1))
            paragraph += 1
            body = "\n".join(lines[number + 1 : fence_end]).strip("\n")
            whole = "\n".join(lines[number : fence_end + 1])
            if body.strip():
                code = Sentence(whole, body, (), paragraph, True, block, item=True, code=True)
                found.append(code)
            paragraph += 1  # what follows is a sentence of its own, not part of the code
            continue
        if not line.strip():
            paragraph, block = paragraph + 1, block + 1
            continue
        item = starts_block(line)
        header = is_table_header(lines, number)
        paragraph += item
        pieces = _pieces(line)
        for piece in pieces:
            plain = without_marker(MARKER.sub(" ", piece)).strip()
            if LEADING_MARKER.fullmatch(MARKER.sub("", piece)):
                plain = ""  # "1[1]." is a list number cut off from its item, not a claim
            if not any(char.isalnum() for char in plain):
                if found and MARKER.search(piece):
                    last = found[-1]
                    cites = tuple(sorted({*last.cites, *cited_numbers(piece)}))
                    found[-1] = replace(last, text=last.text + piece, cites=cites)
                continue
            cites = tuple(cited_numbers(piece))
            found.append(
                Sentence(
                    piece.strip(),
                    plain,
                    cites,
                    paragraph,
                    len(pieces) == 1,
                    block,
                    item,
                    bool(header),
                )
            )
    return found


def _closing_fence(lines: list[str], opening: int, fence: str) -> int:
    """The line closing the code block opened at ``opening`` (the last line when the reply
    was cut before it)."""
    for number in range(opening + 1, len(lines)):
        line = lines[number].strip()
        if line.startswith(fence[:3]) and not line.strip(fence[0]):
            return number
    return len(lines) - 1
