"""Does the passage a sentence cites actually say what the sentence says? Claim support.

A model can cite the right document and still write something it doesn't say: another
person, a cause the source never gives, a continuation of the story it invented. Sharing a
few words with the source (what ``unrelated_source`` asks) doesn't catch that; the share of
the sentence's content words the source holds does, *near each other*: a source that
mentions every word somewhere in a long page supports nothing, so coverage is measured
against the best window of :data:`WINDOW_SENTENCES` consecutive source sentences.

Content words: for English, words minus function words, reduced to their Snowball stem
(PyStemmer: "tracking" meets "tracked"); for Chinese, the character bigrams of
:func:`rag.reading.claim_terms` (the segmentation-free reading the rest of the checker
uses, which also matches a paraphrase that reorders words).

Measured with ``python -m rag check-eval`` on the attrib-tune set (README, "Citation
checker"): window coverage separates supported from unsupported sentences better than
coverage by the whole passage (AttributionBench at a 10 % false alarm: 50 % caught against
40 %), and the single-sentence window is too strict for paraphrases.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

import jieba

from rag.check.numbers import ZH_NUMERALS
from rag.language import Language
from rag.reading import GENERIC_ZH, english_stems, sentence_pieces, words

WINDOW_SENTENCES = 3
"""Source sentences read together when looking for a claim (a claim often spans two)."""
MIN_CONTENT_WORDS = 3
"""A sentence with fewer content words is too thin to judge (``"Yes, it is [1]."``)."""

jieba.setLogLevel(logging.WARNING)  # it logs loading its dictionary to stderr
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]*[A-Za-z]")
_EN_FUNCTION_WORDS = frozenset(
    words(
        """a an the of to in on at for from by with and or but nor is are was were be been being am
    do does did done have has had having can could would should will shall may might must i you
    he she it we they me him her us them my your his its our their this that these those what
    which who whom whose when where why how there here if then than so not no yes any some
    about into onto as up out also per each only such other others another more most much many
    very well just even still yet however therefore thus although though while because since
    both either neither all several various including include includes included like among
    between within without over under after before during through against across upon via
    one ones it's that's there's can't don't doesn't isn't aren't won't wouldn't shouldn't"""
    )
)
_ZH_QUALIFIERS = frozenset(
    words("不到 超过 以上 以下 左右 大约 至少 最多 不少 之内 以内 起来 出来")
)
"""Words that qualify a quantity (the number rule reads the quantity) or only a verb's
direction: "如果算出来的手续费不到 50 元" says nothing the source must repeat word for word."""
_FUNCTION_STEMS = frozenset(english_stems(sorted(_EN_FUNCTION_WORDS)))


def _fold(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def _zh_words(text: str) -> frozenset[str]:
    """jieba's words of two or more characters, minus numbers and words that say nothing."""
    return frozenset(
        word
        for word in (_fold(word) for word in jieba.lcut(text))
        if len(word) >= 2
        and all(char.isalpha() for char in word)
        # a word with a numeral is a number: the number rule reads it (百分之五 against "5%")
        and not any(char in ZH_NUMERALS for char in word)
        and word not in GENERIC_ZH
        and word not in _ZH_QUALIFIERS
        and word not in _EN_FUNCTION_WORDS
    )


def warm_up() -> None:
    """Load jieba's dictionary now (about a second, once per process) rather than while the
    first asker waits for the first checked answer, with the tagger that reads names."""
    import jieba.posseg  # its tag dictionary loads on import

    jieba.initialize()


def content_words(text: str, language: Language) -> frozenset[str]:
    """The words that carry a text's meaning, normalised so that inflections meet."""
    if language == "zh":
        return _zh_words(text)
    found = (word.lower().replace("’", "'").removesuffix("'s") for word in _WORD.findall(text))
    kept = [word for word in found if word not in _EN_FUNCTION_WORDS]
    return frozenset(english_stems(kept)) - _FUNCTION_STEMS


@dataclass(frozen=True, slots=True)
class Window:
    """A few consecutive sentences of a source, ready to be asked which words it holds.

    English is compared stem by stem; Chinese words are looked up as substrings of the
    window's text, so it doesn't matter how jieba would have cut the source ("剩余课时").
    """

    text: str
    language: Language
    stems: frozenset[str] = frozenset()
    folded: str = ""

    @classmethod
    def of(cls, text: str, language: Language) -> Window:
        """``text`` read whole as one window."""
        if language == "zh":
            return cls(text, language, folded=_fold(text))
        return cls(text, language, content_words(text, language))

    def held(self, wanted: frozenset[str]) -> frozenset[str]:
        if self.language == "zh":
            return frozenset(word for word in wanted if word in self.folded)
        return wanted & self.stems


def source_sentences(text: str) -> list[str]:
    """A passage cut into sentences (lines, and full stops within them), as
    :func:`rag.reading.sentence_pieces` cuts every text the answer core reads."""
    return [piece for line in text.splitlines() for piece in sentence_pieces(line) if piece.strip()]


class Passage:
    """One cited source, cut into sentences once per answer and asked, claim by claim, for
    the window of WINDOW_SENTENCES consecutive sentences that holds most of the claim.

    A cited web page may run to 30,000 characters and a thousand sentences; stemming all of
    them for every answer was the checker's slowest step. For English a cheap pre-filter (one
    regular expression over the page) finds the sentences with a word that starts like a
    wanted stem (a Snowball stem keeps the first letters of its word), and only those are
    stemmed, once; a sentence without such a word holds none of the claim's words.
    """

    def __init__(self, text: str, language: Language) -> None:
        self.language = language
        self.pieces = source_sentences(text) or [""]
        self._stems: dict[int, frozenset[str]] = {}
        self._windows: tuple[Window, ...] | None = None
        if language == "en":
            lowered = [piece.lower().replace("’", "'") for piece in self.pieces]
            self._text = "\n".join(lowered)
            self._starts = list(accumulate((len(piece) + 1 for piece in lowered), initial=0))

    def windows(self) -> tuple[Window, ...]:
        """Every window of the passage, fully read."""
        if self._windows is None:
            spans = range(max(1, len(self.pieces) - WINDOW_SENTENCES + 1))
            self._windows = tuple(self._window(start, range(len(self.pieces))) for start in spans)
        return self._windows

    def best(self, wanted: frozenset[str]) -> Window:
        """The window holding most of ``wanted`` (the first such, for a stable result)."""
        if self.language == "zh" or not wanted:
            return max(self.windows(), key=lambda window: len(window.held(wanted)))
        prefixes = sorted({stem[: max(2, min(4, len(stem) - 1))] for stem in wanted})
        pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, prefixes)) + ")")
        hits = {bisect_right(self._starts, m.start()) - 1 for m in pattern.finditer(self._text)}
        starts = sorted(
            {
                max(0, min(hit - k, len(self.pieces) - WINDOW_SENTENCES))
                for hit in hits
                for k in range(WINDOW_SENTENCES)
            }
        ) or [0]
        candidates = [self._window(start, hits) for start in starts]
        best = max(candidates, key=lambda window: len(window.held(wanted)))
        return best if best.held(wanted) else self._window(0, hits)

    def _window(self, start: int, readable: set[int] | range) -> Window:
        """The window from sentence ``start``; only sentences in ``readable`` are stemmed
        (the others hold none of the words asked for)."""
        joined = " ".join(self.pieces[start : start + WINDOW_SENTENCES])
        if self.language == "zh":
            return Window(joined, self.language, folded=_fold(joined))
        span = range(start, min(start + WINDOW_SENTENCES, len(self.pieces)))
        stems = frozenset().union(*(self._piece_stems(i) for i in span if i in readable))
        return Window(joined, self.language, stems)

    def _piece_stems(self, index: int) -> frozenset[str]:
        if index not in self._stems:
            self._stems[index] = content_words(self.pieces[index], "en")
        return self._stems[index]


def windows(text: str, language: Language) -> tuple[Window, ...]:
    """Each run of WINDOW_SENTENCES consecutive sentences of ``text``."""
    return Passage(text, language).windows()


def coverage(wanted: frozenset[str], held: frozenset[str]) -> float:
    return len(wanted & held) / len(wanted) if wanted else 1.0
