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
from collections.abc import Sequence
from dataclasses import dataclass

import jieba
import Stemmer

from rag.check.numbers import words
from rag.language import Language
from rag.reading import GENERIC_ZH, SENTENCE_END

WINDOW_SENTENCES = 3
"""Source sentences read together when looking for a claim (a claim often spans two)."""
MIN_CONTENT_WORDS = 3
"""A sentence with fewer content words is too thin to judge (``"Yes, it is [1]."``)."""

jieba.setLogLevel(logging.WARNING)  # it logs loading its dictionary to stderr
_STEMMER = Stemmer.Stemmer("english")
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
_ZH_NUMERALS = frozenset("零〇一二两三四五六七八九十百千万亿")
"""Words with these are numbers: the number rule reads them (百分之五 against "5%")."""
_ZH_QUALIFIERS = frozenset(
    words("不到 超过 以上 以下 左右 大约 至少 最多 不少 之内 以内 起来 出来")
)
"""Words that qualify a quantity (the number rule reads the quantity) or only a verb's
direction: "如果算出来的手续费不到 50 元" says nothing the source must repeat word for word."""
_FUNCTION_STEMS = frozenset(_STEMMER.stemWords(sorted(_EN_FUNCTION_WORDS)))


def _fold(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def _zh_words(text: str) -> frozenset[str]:
    """jieba's words of two or more characters, minus numbers and words that say nothing."""
    return frozenset(
        word
        for word in (_fold(word) for word in jieba.lcut(text))
        if len(word) >= 2
        and all(char.isalpha() for char in word)
        and not _ZH_NUMERALS.intersection(word)
        and word not in GENERIC_ZH
        and word not in _ZH_QUALIFIERS
        and word not in _EN_FUNCTION_WORDS
    )


def warm_up() -> None:
    """Load jieba's dictionary now (about a second, once per process) rather than while the
    first asker waits for the first checked answer."""
    jieba.initialize()


def content_words(text: str, language: Language) -> frozenset[str]:
    """The words that carry a text's meaning, normalised so that inflections meet."""
    if language == "zh":
        return _zh_words(text)
    found = (word.lower().replace("’", "'").removesuffix("'s") for word in _WORD.findall(text))
    kept = [word for word in found if word not in _EN_FUNCTION_WORDS]
    return frozenset(_STEMMER.stemWords(kept)) - _FUNCTION_STEMS


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

    def held(self, wanted: frozenset[str]) -> frozenset[str]:
        if self.language == "zh":
            return frozenset(word for word in wanted if word in self.folded)
        return wanted & self.stems


def source_sentences(text: str) -> list[str]:
    """A passage cut into sentences (lines, and full stops within them)."""
    pieces: list[str] = []
    for line in text.splitlines():
        start = 0
        for match in SENTENCE_END.finditer(line):
            pieces.append(line[start : match.end()])
            start = match.end()
        pieces.append(line[start:])
    return [piece for piece in pieces if piece.strip()]


def windows(text: str, language: Language) -> tuple[Window, ...]:
    """Each run of WINDOW_SENTENCES consecutive sentences of ``text``."""
    pieces = source_sentences(text) or [""]
    stems = [content_words(piece, "en") if language == "en" else frozenset() for piece in pieces]
    found = []
    for start in range(max(1, len(pieces) - WINDOW_SENTENCES + 1)):
        joined = " ".join(pieces[start : start + WINDOW_SENTENCES])
        if language == "zh":
            found.append(Window(joined, language, folded=_fold(joined)))
        else:
            found.append(Window(joined, language, frozenset().union(*stems[start : start + 3])))
    return tuple(found)


def best_window(wanted: frozenset[str], candidates: Sequence[Window]) -> Window | None:
    """The window holding most of ``wanted`` (the first such, for a stable result)."""
    return max(candidates, key=lambda window: len(window.held(wanted)), default=None)


def coverage(wanted: frozenset[str], held: frozenset[str]) -> float:
    return len(wanted & held) / len(wanted) if wanted else 1.0
