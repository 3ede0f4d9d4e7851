"""A passage for each part of a list, count or comparison question (:mod:`rag.parts`).

- a list or count ("一共有几类假期？"): the question's topic ("假期") searched with one passage
  per section (:mod:`rag.search.diverse`), and :data:`EXTRA_FOR_LISTS` more slots than usual:
  the items of a kind are usually written one page or section each;
- a comparison ("出差和加班各需要谁审批？"): each thing's own question searched ("出差需要谁
  审批", "加班需要谁审批") and its best passage kept, the rest of the slots from the topic.

The topic is searched without the words that only shape the answer ("几类", "what kinds of",
"difference between"): they are in no passage, and kept they pulled every passage's score
under the threshold ("What kinds of leave are there?" was refused over five leave pages).

The first hit, which the gate compares with the threshold, is the better of the question's own
best passage and the topic's: a thing's own search ("coaxial cable") is short and matches
some passage well even when nothing compares the two, so it never decides alone.
"""

from __future__ import annotations

from dataclasses import replace

from rag.parts import Parts
from rag.results import Hit
from rag.search.diverse import PER_SECTION, diverse
from rag.search.fusion import RowArray
from rag.search.index import Index

EXTRA_FOR_LISTS = 3
"""Slots beyond TOP_K for a list or count: one passage per item of up to eight items."""
PER_THING = 1
"""Passages kept for each compared thing from its own search."""


def gather(
    index: Index, question: str, parts: Parts, k: int, *, rows: RowArray | None = None
) -> list[Hit]:
    """The passages for ``parts`` of ``question``, the gate's passage first, ranks from 1."""
    asked = index.search(question, 1, rows=rows)
    if parts.shape == "comparison":
        slots = max(k, len(parts.things) + 1)
        own = _own(index, parts, rows)
        topic = index.search(parts.topic, slots, rows=rows)
    else:
        slots, own = k + EXTRA_FOR_LISTS, []
        topic = index.search(parts.topic, slots, rows=rows, per_section=1)
    leads = sorted(asked[:1] + topic[:1], key=lambda hit: -hit.score)[:1]
    taken = {hit.chunk.id for hit in leads + own}
    rest = [hit for hit in topic if hit.chunk.id not in taken]
    # the lead and the things' own passages first, so the diverse cut keeps every one of them
    kept = diverse([*leads, *own, *rest], slots, per_section=PER_SECTION if own else 1)
    ordered = kept[:1] + sorted(kept[1:], key=lambda hit: -hit.score)
    return [replace(hit, rank=rank) for rank, hit in enumerate(ordered, start=1)]


def _own(index: Index, parts: Parts, rows: RowArray | None) -> list[Hit]:
    """Each compared thing's best passage from its own search, one passage each."""
    own: list[Hit] = []
    for ask in parts.searches():
        taken = {hit.chunk.id for hit in own}
        found = index.search(ask, PER_THING + len(own), rows=rows)
        own += [hit for hit in found if hit.chunk.id not in taken][:PER_THING]
    return own
