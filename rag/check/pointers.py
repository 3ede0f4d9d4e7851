"""Sentence pointers (CITE_SENTENCES): a claim checked against the sentence it says it rests on.

With CITE_SENTENCES on, the prompt shows each source's sentences numbered
(:func:`rag.generate.prompt.numbered_block`) and the model cites ``[2.3]``: source 2,
sentence 3. Instead of the whole passage, each claim is then checked — by every rule of
:func:`rag.check.citations.check` — against what it points at: that sentence with its
neighbours (a claim often rests on a sentence and the one that names its subject). A pointer
to a sentence the source doesn't have is an ``unknown_reference``. A plain ``[2]`` in the same
reply still cites the whole passage.

How: every distinct pointer becomes a stand-in source (the pointed window, under the passage's
own title and headings) and the draft is checked with its pointers written as the stand-ins'
numbers; the problems found are then written back with the passage numbers. Askers, reviewers
and the citation buttons see ``[2]``: the same passage as without pointers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rag.check.screen import Screening, screen
from rag.generate.prompt import source_sentences
from rag.language import Language, detect_language
from rag.markers import MARKER, marker_numbers, renumbered
from rag.problems import Problem
from rag.results import Hit

NEIGHBOURS = 1
"""Sentences on each side of the pointed one that the claim may also rest on."""

_PAIR = r"\d+\s*[.．]\s*\d+"
_POINTERS = re.compile(rf"[\[［【]\s*({_PAIR}(?:\s*[,，、;；]\s*{_PAIR})*)\s*[\]］】]")
_ANY = re.compile(rf"{_POINTERS.pattern}|{MARKER.pattern}")
_PAIR_PARTS = re.compile(r"(\d+)\s*[.．]\s*(\d+)")
_REPEATED = re.compile(r"\[(\d+)\](?:\s*\[\1\])+")
_OUT_OF_RANGE = 100_000
"""Stand-in numbers for passages that don't exist: beyond any stand-in, back to what was
written in every problem."""


def has_pointers(text: str) -> bool:
    return _POINTERS.search(text) is not None


@dataclass
class _StandIns:
    hits: Sequence[Hit]
    stand_ins: list[Hit]
    passage_of: dict[int, int]
    """Stand-in number -> the passage number askers see."""
    keys: dict[tuple[int, int], int]
    missing: list[tuple[int, int, int]]
    """(passage, sentence, sentences it has) of pointers to nothing."""

    def number(self, n: int, s: int = 0) -> int:
        """The stand-in for sentence ``s`` of passage ``n`` (0: the whole passage)."""
        if not 1 <= n <= len(self.hits):
            # A passage that doesn't exist stays out of range, so the rules still say so.
            self.passage_of[_OUT_OF_RANGE + n] = n
            return _OUT_OF_RANGE + n
        sentences = source_sentences(self.hits[n - 1].chunk.text)
        if s > len(sentences):
            self.missing.append((n, s, len(sentences)))
            s = 0
        if (n, s) not in self.keys:
            hit = self.hits[n - 1]
            if s:
                low, high = max(s - 1 - NEIGHBOURS, 0), s + NEIGHBOURS
                hit = replace(hit, chunk=replace(hit.chunk, text=" ".join(sentences[low:high])))
            self.stand_ins.append(hit)
            self.keys[n, s] = len(self.stand_ins)
            self.passage_of[len(self.stand_ins)] = n
        return self.keys[n, s]


def _as_passages(text: str, passage_of: dict[int, int]) -> str:
    return _REPEATED.sub(r"[\1]", renumbered(text, passage_of))


def shown_text(draft: str, hits: Sequence[Hit]) -> str:
    """The draft as askers see it: each pointer written as its passage's ``[n]``."""
    return _as_passages(*_stand_in_draft(draft, hits)[:2])


def _stand_in_draft(draft: str, hits: Sequence[Hit]) -> tuple[str, dict[int, int], _StandIns]:
    table = _StandIns(hits, [], {}, {}, [])

    def rewrite(match: re.Match[str]) -> str:
        if match[1] is not None:
            pairs = [(int(n), int(s)) for n, s in _PAIR_PARTS.findall(match[1])]
            return "".join(f"[{table.number(n, s)}]" for n, s in pairs)
        return "".join(f"[{table.number(n)}]" for n in marker_numbers(match[2]))

    text = _ANY.sub(rewrite, draft)
    return text, table.passage_of, table


def screen_pointed(
    draft: str, hits: Sequence[Hit], *, question: str = "", language: Language | None = None
) -> tuple[str, Screening]:
    """The draft as askers see it, and the screening of its claims against what they point at
    (:func:`rag.check.screen.screen`'s decision, problems written with passage numbers)."""
    text, passage_of, table = _stand_in_draft(draft, hits)
    shown = _as_passages(text, passage_of)
    screening = screen(text, table.stand_ins, question=question, language=language)
    if screening.refused is not None:
        return shown, screening
    language = language or detect_language(shown)
    problems = [
        Problem(
            p.kind,
            _as_passages(p.message, passage_of),
            _as_passages(p.sentence, passage_of),
            tuple(sorted({passage_of.get(n, n) for n in p.refs})),
            _as_passages(p.note, passage_of),
        )
        for p in screening.report.problems
    ]
    problems += [_missing(n, s, count, language) for n, s, count in table.missing]
    report = replace(screening.report, problems=tuple(dict.fromkeys(problems)))
    return shown, replace(screening, report=report)


def _missing(n: int, s: int, count: int, language: Language) -> Problem:
    if language == "zh":
        message = f"回答指向资料 [{n}] 的第 {s} 句，但该资料只有 {count} 句"
    else:
        message = f"the answer points at sentence {s} of [{n}], which has only {count}"
    return Problem("unknown_reference", message, refs=(n,))
