"""A passage for each part of a list, count or comparison question (:mod:`rag.parts`).

- a list or count ("一共有几类假期？"): the question's topic ("假期") searched with one passage
  per section (:mod:`rag.search.diverse`), and :data:`EXTRA_FOR_LISTS` more slots than usual:
  the items of a kind are usually written one page or section each;
- a comparison ("出差和加班各需要谁审批？"): each thing's own question searched ("出差需要谁
  审批", "加班需要谁审批") and its best passage kept, the rest of the slots from the whole
  question's topic.

The topic is searched without the words that only shape the answer ("几类", "what kinds of",
"difference between"): they are in no passage, and kept they pulled every passage's score
under the threshold ("What kinds of leave are there?" was refused over five leave pages). The
hits come back best first, so the gate compares the best passage any part found.
"""

from __future__ import annotations

from dataclasses import replace

from rag.parts import Parts
from rag.results import Hit
from rag.search.diverse import diverse
from rag.search.fusion import RowArray
from rag.search.index import Index

EXTRA_FOR_LISTS = 3
"""Slots beyond TOP_K for a list or count: one passage per item of up to eight items."""
PER_THING = 1
"""Passages kept for each compared thing from its own search."""


def gather(index: Index, parts: Parts, k: int, *, rows: RowArray | None = None) -> list[Hit]:
    """The passages for ``parts``, best first, ranks from 1."""
    if parts.shape != "comparison":
        return index.search(parts.topic, k + EXTRA_FOR_LISTS, rows=rows, per_section=1)
    slots = max(k, len(parts.things) + 1)
    own: list[Hit] = []
    for ask in parts.searches():
        taken = {hit.chunk.id for hit in own}
        found = index.search(ask, PER_THING + len(own), rows=rows)
        own += [hit for hit in found if hit.chunk.id not in taken][:PER_THING]
    taken = {hit.chunk.id for hit in own}
    whole = [h for h in index.search(parts.topic, slots, rows=rows) if h.chunk.id not in taken]
    # the things' own passages first, so the diverse cut keeps every one of them; then best
    # first, so the gate weighs the best passage any part found
    kept = diverse([*own, *whole], slots)
    ranked = sorted(kept, key=lambda hit: -hit.score)
    return [replace(hit, rank=rank) for rank, hit in enumerate(ranked, start=1)]
