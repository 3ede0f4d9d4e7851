"""Is each cited sentence backed by what it cites? Words, names and duties, per sentence.

Three rules, each raising its own problem kind (see :mod:`rag.check.citations`):

``unsupported_claim``
    under :data:`MIN_SUPPORT` of the sentence's content words are in the best window of the
    sources it cites (:mod:`rag.check.support`).
``ungrounded_name``
    a person, place, organisation, product, code or quoted term the sentence names is in
    neither the cited sources nor the question (:mod:`rag.check.entities`).
``modality_mismatch``
    the sentence says must / may where the source says must not / may not, or the reverse
    (:mod:`rag.check.modality`).

Sentences in another language than their sources are left alone (a translation can't be
compared word by word), as are sentences too thin to judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rag.check.direction import turned
from rag.check.entities import Grounds, missing_names
from rag.check.modality import flipped
from rag.check.polarity import opposite
from rag.check.support import MIN_CONTENT_WORDS, Passage, Window, content_words, coverage
from rag.language import Language, detect_language
from rag.results import Hit

MIN_SUPPORT: dict[Language, float] = {"en": 0.2, "zh": 0.4}
"""A sentence is supported when its cited window holds at least this share of its content
words. Chosen from the catch / false-alarm curve on the tuning set (README, "Citation
checker"); Chinese bigrams overlap more by chance than English stems, hence the higher bar."""


@dataclass(frozen=True, slots=True)
class Finding:
    """What the claim rules found in one sentence."""

    support: float
    """Share of its content words in the best cited window (1.0 when not judged)."""
    unsupported: bool = False
    missing_names: tuple[str, ...] = ()
    flipped: tuple[str, ...] = ()


@dataclass(slots=True)
class ClaimSources:
    """The cited passages, cut into windows once per answer (several sentences cite each)."""

    hits: Sequence[Hit]
    question: str = ""
    _passages: dict[tuple[int, Language], Passage] = field(default_factory=dict)
    _languages: dict[int, Language] = field(default_factory=dict)
    _grounds: dict[tuple[int, ...], Grounds] = field(default_factory=dict)
    _best: dict[tuple[int, Language, frozenset[str]], Window] = field(default_factory=dict)

    def language(self, n: int) -> Language:
        if n not in self._languages:
            self._languages[n] = detect_language(self.hits[n - 1].chunk.text)
        return self._languages[n]

    def text(self, n: int) -> str:
        return self.hits[n - 1].chunk.text_with_headings

    def passage(self, n: int, language: Language) -> Passage:
        if (n, language) not in self._passages:
            self._passages[n, language] = Passage(self.text(n), language)
        return self._passages[n, language]

    def best(self, n: int, language: Language, wanted: frozenset[str]) -> Window:
        """The window of source ``n`` holding most of ``wanted`` (asked by more than one rule)."""
        key = (n, language, wanted)
        if key not in self._best:
            self._best[key] = self.passage(n, language).best(wanted)
        return self._best[key]

    def grounds(self, refs: Sequence[int]) -> Grounds:
        """The question and the sources ``refs``, folded once per answer, not per sentence."""
        key = tuple(refs)
        if key not in self._grounds:
            self._grounds[key] = Grounds([self.question, *(self.text(n) for n in refs)])
        return self._grounds[key]


def judge(
    plain: str, refs: Sequence[int], sources: ClaimSources, *, calculates: bool = False
) -> Finding:
    """The claim rules applied to one sentence (``plain``: markers removed) citing ``refs``.

    A sentence that ``calculates`` ("两者合计 6 + 10 = 16") is judged by the number and
    arithmetic rules, not by its words: it states a result, not something the source says.
    """
    language = detect_language(plain)
    refs = [n for n in refs if sources.language(n) == language]
    if not refs:
        return Finding(1.0)
    wanted = content_words(plain, language)
    names = tuple(missing_names(plain, language, sources.grounds(refs)))
    if len(wanted) < MIN_CONTENT_WORDS or calculates:
        return Finding(1.0, missing_names=names)
    best = [sources.best(n, language, wanted) for n in refs]
    support = coverage(wanted, frozenset().union(*(window.held(wanted) for window in best)))
    window = max(best, key=lambda window: len(window.held(wanted))).text if best else ""
    return Finding(
        support,
        unsupported=support < MIN_SUPPORT[language],
        missing_names=names,
        flipped=(
            *flipped(plain, window),
            *(["polarity"] if opposite(plain, window) else []),
            *(["direction"] if turned(plain, window) else []),
        ),
    )
