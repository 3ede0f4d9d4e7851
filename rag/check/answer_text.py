"""How an answer's text is read: citation markers, sentences, paragraphs, content terms.

Citation markers are read by :mod:`rag.markers` (``[1]``, ``[1, 2]``, ``[1-3]``, ``【1】``…);
models put them before or after the full stop.
Sentences end at ``。！？；!?`` and at a ``.`` followed by space (so ``3.5`` stays whole);
a marker that opens a piece ("…3420 元。[1]") belongs to the sentence before it.
Paragraphs are separated by blank lines; every list item, heading, quote or table row starts
its own. Content terms are Chinese character bigrams and English words, minus function words
and bigrams generic enough to appear anywhere (可以, 根据, 资料…).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from rag.check.numbers import words
from rag.markers import MARKER, cited_numbers
from rag.search.lexical import features

SENTENCE_END = re.compile(
    r"[。！？；!?]+[”’」』）)\"']*"
    r"|(?<!\bNo)(?<!\bno)(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bapprox)\.(?=\s|$)[”’\"')]*"
)
"""Where a sentence ends: Chinese full stops and the like anywhere, a "." only before a space
or the end (so 3.5 stays whole) and not after No., e.g., i.e., vs. or approx."""
_LEADING_MARKERS = re.compile(rf"^\s*(?:{MARKER.pattern}\s*)+")
_BLOCK_START = re.compile(
    r"^\s*(?:[-*+•](?=\s)|[>|]|#{1,6}\s|\d{1,2}(?:[.．](?!\d)|[)、])|[(（]\d{1,2}[)）]"
    r"|[一二三四五六七八九十]+、)"
)
"""A line that starts its own paragraph: list item ("- ", "1. ", "（2）", "三、"), quote, table
row or heading. Bold text ("**计算**") is not a bullet."""
_LIST_MARKER = re.compile(
    r"^\s*(?:[-*+•](?=\s)|>+|#{1,6}|\d{1,2}(?:[.．](?!\d)|[)、])|[(（]\d{1,2}[)）]"
    r"|[一二三四五六七八九十]+、)\s*"
)
_STOP_CHARS = frozenset("的了是在和与及或也都就我你您他她它们这那吗呢吧啊")
GENERIC_ZH = frozenset(
    words(
        "可以 我们 你们 他们 如果 需要 进行 没有 这个 那个 一个 根据 资料 原文 如下 以下 相关 按照 "
        "因为 所以 但是 已经 以及 其中 之后 之前 时候 主要 通过 由于 其他 什么 怎么 如何 哪些 一些 "
        "一共 还有 就是 或者 并且 而且 同时 可能 应该 不能 不会 这些 那些 目前 之间 一样 比如 例如 "
        "包括"
    )
)
_EN_STOPWORDS = frozenset(
    words(
        "a an the of to in on at for from by with and or but is are was were be been being do does "
        "did have has had can could would should will shall may might must i you he she it we they "
        "me my your our their this that these those what which who whom whose when where why how "
        "there here if then than so not no any some about into as up out get also per each only "
        "documents document written source sources"
    )
)


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

    @property
    def lead_in(self) -> bool:
        return self.plain.endswith((":", "："))


def _pieces(line: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for match in SENTENCE_END.finditer(line):
        pieces.append(line[start : match.end()])
        start = match.end()
    pieces.append(line[start:])
    merged: list[str] = []
    for piece in pieces:
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
    for line in text.splitlines():
        if not line.strip():
            paragraph, block = paragraph + 1, block + 1
            continue
        item = _BLOCK_START.match(line) is not None
        paragraph += item
        pieces = _pieces(line)
        for piece in pieces:
            plain = _LIST_MARKER.sub("", MARKER.sub(" ", piece)).strip()
            if not any(char.isalnum() for char in plain):
                if found and MARKER.search(piece):
                    last = found[-1]
                    cites = tuple(sorted({*last.cites, *cited_numbers(piece)}))
                    found[-1] = replace(last, text=last.text + piece, cites=cites)
                continue
            cites = tuple(cited_numbers(piece))
            found.append(
                Sentence(piece.strip(), plain, cites, paragraph, len(pieces) == 1, block, item)
            )
    return found


def terms(text: str) -> set[str]:
    """Content terms: Chinese character bigrams and English words, minus the generic ones."""
    found: set[str] = set()
    for feature in features(MARKER.sub(" ", text)):
        if len(feature) == 2 and not feature.isascii():
            if not _STOP_CHARS.intersection(feature) and feature not in GENERIC_ZH:
                found.add(feature)
        elif (
            feature.isascii()
            and any(c.isalpha() for c in feature)
            and len(feature) > 1
            and feature not in _EN_STOPWORDS
        ):
            found.add(feature[:-1] if len(feature) > 3 and feature.endswith("s") else feature)
    return found
