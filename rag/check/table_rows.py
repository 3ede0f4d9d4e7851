"""A number taken from the wrong row of a table: "流利级的课程费为 5600 元" where the cited table
gives 5600 元 in 商务级's row and 4800 元 in 流利级's.

The number rule grounds 5600 (the source has it) and word coverage passes the sentence; only
the table's rows say which thing the number belongs to. For each number a sentence grounds in
a Markdown table of a source it cites: when the sentence names rows of that table (their first
cells) and the number stands in none of them, but in another row, the number is misattributed.
A sentence naming both rows ("流利级 4800 元，商务级 5600 元") is left alone.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rag.check.answer_text import Sentence
from rag.check.numbers import Quantity
from rag.check.problem_texts import ProblemTexts
from rag.check.source_numbers import number_values
from rag.lines import is_table_row, is_table_rule
from rag.problems import Problem

MIN_LABEL_CHARS = 2
"""A first cell this short ("A", "1") names nothing a sentence would be matched on."""


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    """The first cell, as written."""
    key: str
    """The first cell folded (NFKC, case, spaces), as it is looked for in a sentence."""
    values: frozenset[float]


def _fold(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


@lru_cache(maxsize=256)
def table_rows(text: str) -> tuple[tuple[Row, ...], ...]:
    """The body rows of each Markdown table in ``text``, labelled by their first cell; read
    once per source, not once per number that cites it."""
    if "|" not in text:
        return ()
    tables: list[tuple[Row, ...]] = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if not is_table_rule(line) or index == 0 or "|" not in lines[index - 1]:
            continue
        rows = []
        for body in lines[index + 1 :]:
            if not is_table_row(body):
                break
            cells = [cell.strip() for cell in body.strip().strip("|").split("|")]
            if len(_fold(cells[0])) >= MIN_LABEL_CHARS:
                rows.append(Row(cells[0], _fold(cells[0]), number_values(" ".join(cells[1:]))))
        tables.append(tuple(rows))
    return tuple(tables)


def misplaced(
    sentence: Sentence,
    grounded: Sequence[Quantity],
    cited: Sequence[tuple[int, str]],
    say: ProblemTexts,
) -> list[Problem]:
    """A problem for each number of ``sentence`` that a cited table gives in another row than
    the one(s) the sentence names."""
    said = _fold(sentence.plain)
    problems = []
    for quantity in (q for q in grounded if not q.ordinal):  # a rank is in no row
        for ref, text in cited:
            for rows in table_rows(text):
                named = {row.label for row in rows if row.key in said}
                holding = {row.label for row in rows if quantity.values & row.values}
                if named and holding and not named & holding:
                    message = say.misplaced(quantity, ref, sorted(holding), sorted(named))
                    problems.append(Problem("misattributed_number", message, sentence.text, (ref,)))
    return list(dict.fromkeys(problems))
