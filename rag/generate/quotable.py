"""Sources -> quotable sentences: what the offline answerer may quote, read as a person would.

Each source (as the prompt numbered it) becomes its sentences, exact substrings of the source:
soft-wrapped lines joined (a sentence wrapped over two lines is one sentence), a list item
without its marker, a sentence ending in a colon with the list or table rows it introduces, a
table header with its rows. Each carries the terms it shares with questions
(:func:`rag.reading.match_terms`), its heading's terms, where it sits (source, paragraph) and
whether it is under a worked example's heading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.generate.prompt import PromptSource
from rag.lines import is_list_item, is_table_header, is_table_row, is_table_rule, without_marker
from rag.reading import match_terms, sentence_pieces

MAX_LIST_ITEMS = 8
"""How many list items or table rows a quoted lead-in ("依次为：") brings along."""
MAX_CODE_LINES = 30
"""The longest code block (fences included) a lead-in ending in a colon brings along."""
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")

TERMINAL = re.compile(r"[。！？；!?.]+[”’」』）)\"']*$")
LEAD_IN = re.compile(r"[：:]$")
_ANNOUNCES = re.compile(
    r"\b(?:the following|as follows|listed below|below)\b|以下|如下|下列|下面", re.IGNORECASE
)
_EXAMPLE_HEADING = re.compile(r"示例|举例|例子|样例|\bexamples?\b|\be\.g\.", re.IGNORECASE)


def split_sentences(text: str) -> list[str]:
    """Sentences (and list items, table rows) as exact substrings of ``text``."""
    sentences: list[str] = []
    for line in text.splitlines():
        # The item's marker first: "1. 入门级：…" is one item, not a sentence "1." and another.
        for piece in sentence_pieces(without_marker(line.strip())):
            sentence = without_marker(piece.strip())
            if any(char.isalnum() for char in sentence):
                sentences.append(sentence)
    return sentences


CLAUSE_END = re.compile(r"；[”’」』）)\"']*$")
"""A clause that the rest of its sentence completes ("休息日加班的，优先安排调休；" is half a
rule without "不能安排调休的，按 200% 支付。"): a quote is the whole sentence."""


def _with_clauses(line: str, pieces: list[str]) -> list[str]:
    """``pieces`` (exact substrings of ``line``, in order) with the clauses of one sentence
    joined: each ending in a semicolon runs on to the full stop, as the line has it."""
    joined: list[str] = []
    cursor = 0
    open_clause = False
    for piece in pieces:
        start = line.find(piece, cursor)
        end = start + len(piece)
        if open_clause and joined and start >= 0:
            first = line.rfind(joined[-1], 0, start)
            joined[-1] = line[first:end]
        else:
            joined.append(piece)
        cursor = max(cursor, end)
        open_clause = CLAUSE_END.search(piece) is not None
    return joined


@dataclass(frozen=True, slots=True)
class Candidate:
    source: int
    position: int
    text: str
    terms: frozenset[str]
    items: tuple[str, ...] = ()
    """The list items or table rows a lead-in sentence (ending in a colon) introduces."""
    line: int = 0
    """The logical line (paragraph, list item) of its source the sentence is in."""
    topic: frozenset[str] = frozenset()
    """Its heading's terms: they count for a sentence that shares a term of its own."""
    example: bool = False
    """Under a worked example's heading."""
    document: str = ""
    """The document (file name) its source is a passage of."""
    item: bool = False
    """A list item (a step, one of several rules)."""

    @property
    def full_text(self) -> str:
        return "\n".join((self.text, *self.items))


def _list_after(lines: list[str], start: int, *, code: bool = False) -> tuple[str, ...]:
    """The list items or table rows from ``lines[start]`` on, blank lines before them skipped;
    with ``code``, a fenced code block there (a colon's lead-in: "只需这样配置：")."""
    items: list[str] = []
    block = _code_after(lines, start) if code else None
    if block is not None:
        return block
    for line in lines[start:]:
        stripped = line.strip()
        if not stripped:
            if items:
                break
            continue
        if _FENCE.match(stripped):
            break
        if not (is_list_item(stripped) or is_table_row(stripped)):
            break
        if not is_table_rule(stripped):
            items.append(stripped)
        if len(items) == MAX_LIST_ITEMS:
            break
    return tuple(items)


def _code_after(lines: list[str], start: int) -> tuple[str, ...] | None:
    """The fenced code block after a lead-in (blank lines before it skipped), fences and
    indentation as written; ``None`` when none follows or it is not closed within
    :data:`MAX_CODE_LINES` (half a configuration file misleads)."""
    at = next((i for i in range(start, len(lines)) if lines[i].strip()), None)
    if at is None or not (opened := _FENCE.match(lines[at])):
        return None
    fence = opened.group(1)
    for end in range(at + 1, min(at + MAX_CODE_LINES, len(lines))):
        if lines[end].strip().startswith(fence) and not lines[end].strip().strip(fence[0]):
            return tuple(lines[at : end + 1])
    return None


def _in_code(lines: list[str]) -> set[int]:
    """Which lines are in a fenced code block, its fences included."""
    inside: set[int] = set()
    fence: str | None = None
    for number, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            inside.add(number)
        elif fence is not None:
            inside.add(number)
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
    return inside


def _logical_lines(text: str) -> list[str]:
    """Lines with soft-wrapped continuations joined, so a wrapped sentence is quoted whole.

    A line continues the previous one when neither is blank, a heading, a table row, a new
    list item or code and the previous one doesn't end a sentence or introduce a list. Lines
    of a fenced code block stay as written.
    """
    lines: list[str] = []
    code = _in_code(text.splitlines())
    for number, raw in enumerate(text.splitlines()):
        if number in code:
            lines.append(raw)
            continue
        line = raw.strip()
        previous = lines[-1] if lines and number - 1 not in code else ""
        continues = (
            line
            and previous
            and not is_list_item(line)
            and not line.startswith(("#", "|"))
            and not previous.startswith(("#", "|"))
            and not TERMINAL.search(previous)
            and not LEAD_IN.search(previous)
        )
        if continues:
            space = " " if previous[-1].isascii() and line[0].isascii() else ""
            lines[-1] = previous + space + line
        else:
            lines.append(line)
    return lines


def document_of(header: str) -> str:
    """The file name in a source's header line (``[n] file · heading (a › b)``)."""
    name, _, _ = header.partition(" · ")
    return name.split("] ", 1)[-1]


def heading_of(header: str) -> str:
    """The heading path of a source's header line (``[n] file · heading (a › b)``), without
    the number and file name, whose words are no topic."""
    _, _, rest = header.partition(" · ")
    return rest


def _announcing(sentences: list[str]) -> int | None:
    """Which sentence of a paragraph announces the list after it ("submit the following
    paperwork to your HR specialist. Note: …", "材料如下"), when no sentence ends in a colon."""
    if sentences and LEAD_IN.search(sentences[-1]):
        return None
    return next((i for i, s in enumerate(sentences) if _ANNOUNCES.search(s)), None)


def quotable(sources: Sequence[PromptSource]) -> list[Candidate]:
    """Every sentence of every source; a lead-in or table header keeps the rows under it."""
    candidates: list[Candidate] = []
    for source in sources:
        lines = _logical_lines(source.text)
        example = _EXAMPLE_HEADING.search(source.header) is not None
        # The heading names what every sentence under it is about ("Voting and poll
        # volunteering" over "You get up to 4 hours"): its terms count for each of them.
        topic = match_terms(heading_of(source.header))
        document = document_of(source.header)
        code = _in_code(lines)  # quoted only under the lead-in that introduces it
        for number, line in enumerate(lines):
            if number in code:
                continue
            sentences = _with_clauses(line, split_sentences(line))
            announcing = _announcing(sentences)
            for index, sentence in enumerate(sentences):
                last = index == len(sentences) - 1
                introduces = (last and LEAD_IN.search(sentence)) or is_table_header(lines, number)
                items: tuple[str, ...] = ()
                if introduces or index == announcing:
                    items = _list_after(lines, number + 1, code=bool(introduces))
                own = frozenset(match_terms("\n".join((sentence, *items))))
                candidates.append(
                    Candidate(
                        source.n,
                        len(candidates),
                        sentence,
                        own,
                        items,
                        line=number,
                        example=example,
                        topic=frozenset(topic),
                        document=document,
                        item=is_list_item(line),
                    )
                )
    return candidates
