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

A sentence that is one of its sources' sentences word for word passes them all; one that
quotes a part of a source sentence has its duties and negations compared with that sentence
(:mod:`rag.check.verbatim`). Sentences in another language than their sources are left
alone (a translation can't be compared word by word), as are sentences too thin to judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.check.cited import CitedSources
from rag.check.code_blocks import identifiers
from rag.check.direction import turned
from rag.check.entities import missing_names
from rag.check.meta_phrases import without_meta
from rag.check.modality import flipped
from rag.check.polarity import opposite
from rag.check.support import MIN_CONTENT_WORDS, content_words, coverage
from rag.language import Language, detect_language

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


def judge(
    plain: str,
    refs: Sequence[int],
    sources: CitedSources,
    *,
    names_only: bool = False,
    code: bool = False,
) -> Finding:
    """The claim rules applied to one sentence (``plain``: markers removed) citing ``refs``.

    ``names_only``: only its names are judged here. A sentence that calculates ("两者合计
    6 + 10 = 16") is judged by the number and arithmetic rules, not by its words: it states a
    result, not something the source says. A lead-in ("……对新华社记者说，办法明确界定：")
    hands its claim to what follows, but the people and things it names are its own.

    ``code``: ``plain`` is a code block, whose keys and identifiers must be in the sources or
    the question (:mod:`rag.check.code_blocks`); its words are code, not prose, so no
    coverage or duty rule reads them.
    """
    if code:
        grounds = sources.grounds(refs)
        return Finding(
            1.0, missing_names=tuple(n for n in identifiers(plain) if not grounds.name(n))
        )
    quote = sources.quote(plain, refs)
    if quote.verbatim:
        return Finding(1.0)  # one of its sources' sentences, word for word: it says what they do
    language = detect_language(plain)
    refs = [n for n in refs if sources.language(n) == language]
    if not refs:
        return Finding(1.0)
    claim = without_meta(plain)
    wanted = content_words(claim, language)
    names = tuple(missing_names(claim, language, sources.grounds(refs)))
    if len(wanted) < MIN_CONTENT_WORDS or names_only:
        return Finding(1.0, missing_names=names)
    best = [sources.best(n, language, wanted) for n in refs]
    support = coverage(wanted, frozenset().union(*(window.held(wanted) for window in best)))
    window = max(best, key=lambda window: len(window.held(wanted))).text if best else ""
    if quote.sentence is not None:
        window = quote.sentence  # the sentence it quotes a part of, not its neighbours
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
