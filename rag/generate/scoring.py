"""How well each quotable sentence answers the question: the offline answerer's ranking.

Every sentence is scored by the question terms it shares (:func:`rag.reading.match_terms`,
weighted by rarity among the sentences), lifted when it holds what the question asks for
(:mod:`rag.asked`: an amount, a time, a name, a place, steps) and when its source ranks high.
With an embedder (:class:`rag.similarity.SentenceSimilarity`), the sentences that
score best that way are also compared with the question by meaning: a sentence that says what
was asked in other words ("the daily meal allowance" for "per diem") climbs, one that merely
repeats the question's words ("West sings …" for "who sings at the beginning") falls.

Over the passages the lexical phase retrieves, by words alone and with e5's question-sentence
cosine, answerable questions quoted correctly: en-18f 31 and 35 of 60, zh-apisix 33 and 33,
clapnq 40 and 49 of 76, cmrc2018-trial 607 and 617 of 688 (bench/README.md, "Which sentences the
offline answer quotes", has the full-mode figures and the cost).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.asked import Asked
from rag.generate.quotable import Candidate
from rag.similarity import SentenceSimilarity

ASKED_BONUS = 1.5
"""A sentence holding what the question asks for (an amount for 多少/how much, a rate or
formula for 怎么算, a time for when, a name for who, a place for where, steps for how do I) is
what the asker wants; one only about the topic is not."""
RANK_PRIOR = 0.5
"""A sentence of the best source outweighs an equally matching one of the last by this share."""
EXAMPLE_RATIO = 0.6
"""A sentence under a worked example's heading ("计算示例", "Example") or opening with "比如",
"for example" weighs this share: the rule or default it illustrates is the answer, the
example at most its illustration."""
_EXAMPLE_SENTENCE = re.compile(
    r"^\W*(?:比如|例如|譬如|举例|举个例子|e\.g\.|for (?:example|instance)\b|ex(?:ample)?[.:])",
    re.IGNORECASE,
)
"""A sentence that is an example ("比如指定 … 为 8000", "For example, …"). An example inside a
sentence ("以头足类（例如箭石）为食") does not make the sentence one."""

DENSE_CANDIDATES = 8
"""How many of the best sentences by words are compared by meaning: e5 costs ~10 ms a short
sentence on 2 cores, and the sentence holding the fact is nearly always among these (12 gave
the same figures as 8; 6 lost 9 of cmrc2018-trial's answers)."""
DENSE_CHARS = 200
"""The first characters of a sentence (with its list or table rows) that are embedded."""
DENSE_WEIGHT = 1.0
"""How much the question-sentence similarity counts beside the words (both scaled to 0–1)."""
DENSE_SPREAD = 0.05
"""Cosines closer than this say little (e5 puts most sentences of a page within 0.87–0.93 of
a question): the similarity's scale is at least this wide, so near-equal sentences stay near
equal instead of being spread over 0–1."""
LIST_SIMILARITY = 0.5
"""The lowest similarity share a lead-in with its list or table rows gets (not a worked
example's): rows of keys and values read far from any question to an embedder, though they
hold the defaults asked for."""


@dataclass(frozen=True, slots=True)
class SentenceScorer:
    """How well a sentence answers the question by its words (0: shares none of them)."""

    wanted: set[str]
    weight: dict[str, float]
    asked: Asked
    last: int
    unit_seen: bool = False
    """Some sentence has a number beside the asked unit: then only such numbers count."""

    @classmethod
    def of(cls, question: str, wanted: set[str], candidates: list[Candidate]) -> SentenceScorer:
        # Rare terms say more than ones every sentence shares: weight by inverse frequency.
        frequency = {
            term: sum(term in c.terms or term in c.topic for c in candidates) for term in wanted
        }
        asked = Asked.of(question)
        return cls(
            wanted=wanted,
            weight={t: math.log(1 + len(candidates) / df) for t, df in frequency.items() if df},
            asked=asked,
            last=max(c.source for c in candidates),
            unit_seen=any(asked.has_unit(c.full_text) for c in candidates),
        )

    def __call__(self, candidate: Candidate) -> float:
        shared = self.wanted & candidate.terms
        if shared:  # a sentence sharing nothing with the question is not lifted by its heading
            shared |= self.wanted & candidate.topic
        # fsum: exact, so the set's order (a per-process hash seed) can't tip a tie between
        # sentences of equal weight, and every bot process gives the same answer
        value = math.fsum(self.weight.get(term, 0.0) for term in shared)
        if value and self.holds_asked(candidate):
            value *= ASKED_BONUS
        # Sources come best first: retrieval judged the whole passage, not just one sentence.
        last = self.last
        return value * (1 + RANK_PRIOR * (last - candidate.source) / max(last - 1, 1))

    def holds_asked(self, candidate: Candidate) -> bool:
        steps = bool(candidate.items) or candidate.item
        return bool(self.asked.held(candidate.full_text, steps=steps, unit=self.unit_seen))


def ranked(
    question: str,
    candidates: list[Candidate],
    score: SentenceScorer,
    similarity: SentenceSimilarity | None = None,
) -> list[tuple[float, Candidate]]:
    """``(score, candidate)`` best first (ties: the earlier source, then reading order).

    By words alone the score is :class:`SentenceScorer`'s; with ``similarity`` it is the
    words' share of the best (0–1) plus :data:`DENSE_WEIGHT` times the sentence's place
    between the least and most similar of the compared ones (0–1)."""
    values = [score(c) * _example_share(c) for c in candidates]
    lifted = _by_meaning(question, candidates, values, similarity) if similarity else None
    scored = zip(lifted or values, candidates, strict=True)
    return sorted(scored, key=lambda sc: (-sc[0], sc[1].source, sc[1].position))


def _example_share(candidate: Candidate) -> float:
    example = candidate.example or _EXAMPLE_SENTENCE.search(candidate.text) is not None
    return EXAMPLE_RATIO if example else 1.0


def _by_meaning(
    question: str,
    candidates: Sequence[Candidate],
    values: list[float],
    similarity: SentenceSimilarity,
) -> list[float] | None:
    """The scores with the question-sentence similarity added, or ``None`` when fewer than
    two sentences share a word with the question (nothing to choose between) or the
    embedder failed (then the words decide alone)."""
    order = sorted(range(len(candidates)), key=lambda i: (-values[i], i))
    compared = [i for i in order[:DENSE_CANDIDATES] if values[i] > 0]
    if len(compared) < 2:
        return None
    texts = [" ".join(candidates[i].full_text.split())[:DENSE_CHARS] for i in compared]
    cosines = similarity(question, texts)
    if cosines is None:
        return None
    best = values[compared[0]]
    low = min(cosines)
    spread = max(max(cosines) - low, DENSE_SPREAD)
    lifted = [v / best for v in values]
    for i, cosine in zip(compared, cosines, strict=True):
        share = (cosine - low) / spread
        if candidates[i].items and _example_share(candidates[i]) == 1.0:
            share = max(share, LIST_SIMILARITY)
        lifted[i] += DENSE_WEIGHT * share
    return lifted
