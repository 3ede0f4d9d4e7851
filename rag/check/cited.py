"""The sources an answer cites, read once per answer however many of its sentences cite them.

Every rule of the checker reads the same few passages: the number rules their amounts, ranks
and durations, the relatedness rule their terms, the claim rules their windows and names. A
sentence group citing ``[1][2]`` and the next one citing ``[1]`` would otherwise read ``[1]``
twice; :class:`CitedSources` keeps each reading per answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial

from rag.check.arithmetic import Calculation
from rag.check.durations import durations
from rag.check.entities import Grounds
from rag.check.number_grounds import Given, ungrounded
from rag.check.numbers import Quantity
from rag.check.source_numbers import number_readings
from rag.check.support import Passage, Window
from rag.check.verbatim import Quote, SourceSentences
from rag.check.yes_no import asks_yes_or_no
from rag.language import Language, detect_language
from rag.reading import claim_terms
from rag.results import Hit


@dataclass(slots=True)
class CitedSources:
    """``hits[n - 1]`` is what ``[n]`` cites; ``question`` grounds names the asker wrote."""

    hits: Sequence[Hit]
    question: str = ""
    _languages: dict[int, Language] = field(default_factory=dict)
    _numbers: dict[int, tuple[frozenset[float], frozenset[float]]] = field(default_factory=dict)
    _durations: dict[int, frozenset[tuple[float, str]]] = field(default_factory=dict)
    _terms: dict[int, set[str]] = field(default_factory=dict)
    _passages: dict[tuple[int, Language], Passage] = field(default_factory=dict)
    _best: dict[tuple[int, Language, frozenset[str]], Window] = field(default_factory=dict)
    _grounds: dict[tuple[int, ...], Grounds] = field(default_factory=dict)
    _sentences: dict[int, SourceSentences] = field(default_factory=dict)

    def text(self, n: int) -> str:
        return self.hits[n - 1].chunk.text_with_headings

    def texts(self, refs: Sequence[int]) -> list[tuple[int, str]]:
        return [(n, self.text(n)) for n in refs]

    def language(self, n: int) -> Language:
        if n not in self._languages:
            self._languages[n] = detect_language(self.hits[n - 1].chunk.text)
        return self._languages[n]

    def numbers(self, n: int, *, ordinals: bool = False) -> frozenset[float]:
        """The amounts source ``n`` mentions (with its ranks, too, when ``ordinals``)."""
        if n not in self._numbers:  # both readings in one pass over the source
            self._numbers[n] = number_readings(self.text(n))
        amounts, ranks = self._numbers[n]
        return ranks if ordinals else amounts

    def amounts(self, refs: Sequence[int]) -> frozenset[float]:
        """The amounts any of sources ``refs`` mentions."""
        return frozenset().union(*(self.numbers(n) for n in refs))

    def durations(self, refs: Sequence[int]) -> frozenset[tuple[float, str]]:
        """The (value, unit) durations sources ``refs`` state, for an answer that converts one."""
        for n in refs:
            if n not in self._durations:
                self._durations[n] = durations(self.text(n))
        return frozenset().union(*(self._durations[n] for n in refs))

    def ungrounded(
        self,
        amounts: Sequence[Quantity],
        plain: str,
        calcs: Sequence[Calculation],
        refs: Sequence[int],
        given: Given,
        listed_below: int = 0,
    ) -> list[Quantity]:
        """The ``amounts`` of a sentence citing ``refs`` that nothing grounds (a lead-in with
        ``listed_below`` items under it may count them)."""
        return ungrounded(
            amounts,
            plain,
            calcs,
            amounts=self.amounts(refs),
            ranks=frozenset().union(*(self.numbers(n, ordinals=True) for n in refs)),
            durations=partial(self.durations, tuple(refs)),
            texts=lambda: [self.text(n) for n in refs],
            given=given,
            listed_below=listed_below,
        )

    def terms(self, n: int) -> set[str]:
        if n not in self._terms:
            self._terms[n] = claim_terms(self.text(n))
        return self._terms[n]

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
        """The question (unless it asks yes or no: :mod:`rag.check.yes_no`) and the sources
        ``refs``, folded once per answer, not per sentence."""
        key = tuple(refs)
        if key not in self._grounds:
            asked = [] if asks_yes_or_no(self.question) else [self.question]
            self._grounds[key] = Grounds([*asked, *(self.text(n) for n in refs)])
        return self._grounds[key]

    def quote(self, plain: str, refs: Sequence[int]) -> Quote:
        """The sentence of sources ``refs`` that ``plain`` quotes (:mod:`rag.check.verbatim`):
        verbatim in any of them first, else the first sentence holding it."""
        quotes = []
        for n in refs:
            if n not in self._sentences:
                self._sentences[n] = SourceSentences(self.text(n))
            quotes.append(self._sentences[n].quote(plain))
        verbatim = [found for found in quotes if found.verbatim]
        inside = [found for found in quotes if found.sentence is not None]
        return (verbatim or inside or [Quote()])[0]
