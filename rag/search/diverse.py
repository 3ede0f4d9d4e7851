"""The top passages kept diverse: no near-copy twice, no section taking every slot.

Ranked by score alone, the five best passages are often five passages of one section, or one
section and its copy on another page (a FAQ quoting the policy), and an answer built from them
names one part of what was asked. So the ranking is read best first and a passage is

- dropped when it is a near-copy of one already kept (most of its character trigrams are in
  it and it states the same numbers: the same paragraph pasted elsewhere — a copy that says
  14 days where the other says 7 is another rule, a conflict the answer must show), and
- put back when its section already holds ``per_section`` of the kept passages: it is kept
  only when the pool has no other candidate left.

The first passage is always the best one, so the refusal gate (which compares it with the
threshold) decides as before. Neighbouring passages of one section overlap by ~100 of 500
characters, far from a near-copy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from rag.reading import numbers_in
from rag.results import Hit

NEAR_COPY = 0.8
"""Share of a passage's character trigrams already in a kept one that makes it a copy."""
PER_SECTION = 3
"""Passages of one section among the top ones, unless nothing else is left; measured on
cmrc2018-trial and realdocs-tune (bench/README.md, "Questions that span documents")."""
POOL = 3
"""How many times ``k`` candidates the diverse top ``k`` is chosen from."""


def pool_size(k: int) -> int:
    """How many candidates the top ``k`` are chosen from."""
    if k < 1:
        msg = f"k ({k}) must be at least 1"
        raise ValueError(msg)
    return k * POOL


def diverse(hits: Sequence[Hit], k: int, *, per_section: int = PER_SECTION) -> list[Hit]:
    """The first ``k`` of ``hits`` (best first) without near-copies, with at most
    ``per_section`` passages of one section before passages of other sections run out, in
    the order of ``hits``; ranks renumbered from 1."""
    kept: list[Hit] = []
    later: list[Hit] = []
    grams: list[tuple[frozenset[str], frozenset[str]]] = []
    sections: Counter[tuple[str, int]] = Counter()
    for hit in hits:
        own = trigrams(hit.chunk.text), numbers_in(hit.chunk.text)
        if any(_copied(own, other) for other in grams):
            continue
        section = (hit.chunk.source, hit.chunk.section)
        if sections[section] >= per_section:
            later.append(hit)
            continue
        kept.append(hit)
        grams.append(own)
        sections[section] += 1
        if len(kept) == k:
            break
    # in the ranking's own order (by the gate's score, or by fused rank without vectors): a
    # passage put back ranks where the ranking put it
    chosen = {id(hit) for hit in kept + later[: k - len(kept)]}
    ordered = [hit for hit in hits if id(hit) in chosen]
    return [replace(hit, rank=rank) for rank, hit in enumerate(ordered, start=1)]


def trigrams(text: str) -> frozenset[str]:
    folded = "".join(text.split()).casefold()
    return frozenset(folded[i : i + 3] for i in range(max(len(folded) - 2, 1)))


def _copied(
    own: tuple[frozenset[str], frozenset[str]], other: tuple[frozenset[str], frozenset[str]]
) -> bool:
    (words, numbers), (their_words, their_numbers) = own, other
    return numbers == their_numbers and len(words & their_words) >= NEAR_COPY * len(words)
