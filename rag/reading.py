"""How the answer core reads text: features, sentences, list markers, content terms.

One reader for the three places that read text, so they agree on what a sentence and a term is:

- search (:mod:`rag.search.lexical`) indexes :func:`search_terms` — the :func:`features`
  (characters and bigrams of CJK runs, lowercased words) with English words as their
  :func:`english_stems`;
- the offline answerer (:mod:`rag.generate.extractive`) quotes the :func:`sentence_pieces` of
  a source and scores them by :func:`match_terms` shared with the question;
- the checker (:mod:`rag.check.answer_text`) splits an answer with the same
  :func:`sentence_pieces` and asks whether a claim's :func:`claim_terms` are in its source.

Sentences end at ``。！？；!?`` and at a ``.`` followed by space or the end (so ``3.5`` stays
whole, and ``e.g. x`` is not cut). The two term readings differ on purpose: matching a question
keeps lone characters (``蓍是什么`` must find ``蓍``) and drops question words; a claim's
content drops bigrams generic enough to appear anywhere (可以, 根据, 资料…).

This module imports nothing from the rest of ``rag`` but the marker grammar and
:func:`rag.language.is_ideograph`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

import Stemmer

from rag.language import CJK, is_ideograph
from rag.markers import without_markers

_STEMMER = Stemmer.Stemmer("english")


def english_stems(words: Iterable[str]) -> list[str]:
    """Snowball stems of lowercased English words ("changed" -> "chang", "passwords" ->
    "password"): how search and the offline answerer let a question meet a sentence that
    inflects its words."""
    return list(_STEMMER.stemWords(list(words)))


_RUNS = re.compile(rf"(?P<cjk>[{CJK}]+)|(?P<word>[^\W_{CJK}]+)")


def features(text: str) -> list[str]:
    """The lexical features of ``text``: CJK characters and bigrams, lowercased words.

    After NFKC, so that full-width ``ＡＢＣ１２３`` and half-width ``abc123`` meet."""
    found: list[str] = []
    for match in _RUNS.finditer(unicodedata.normalize("NFKC", text).casefold()):
        run = match.group()
        if match.lastgroup == "word":
            found.append(run)
        else:
            found.extend(run)
            found.extend(run[i : i + 2] for i in range(len(run) - 1))
    return found


def search_terms(text: str) -> list[str]:
    """What search indexes: :func:`features` with English words reduced to their
    :func:`english_stems`, so that "How often must I change my password?" meets "Passwords
    are changed only when …"."""
    found = features(text)
    english = [i for i, feature in enumerate(found) if feature.isascii() and feature.isalpha()]
    for i, stem in zip(english, english_stems(found[i] for i in english), strict=True):
        found[i] = stem
    return found


# --- sentences ------------------------------------------------------------------------------

SENTENCE_END = re.compile(
    r"[。！？；!?]+[”’」』）)\"']*"
    r"|(?<!\bNo)(?<!\bno)(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\bapprox)(?<![^A-Za-z][A-Z])(?<!^[A-Z])"
    r"(?<!Mr)(?<!Mrs)(?<!Ms)(?<!Dr)(?<!St)(?<!Jr)(?<!Sr)(?<!Sgt)(?<!Prof)"
    r"\.(?=\s*$|\s+(?![a-z])|[”’\"')])[”’\"')]*"
)
"""Where a sentence ends: Chinese full stops and the like anywhere, a "." only before a space
or the end (so 3.5 stays whole) and not after No., e.g., i.e., vs., approx., a title before a
name ("The Reverend Mr. Black", "St. Felix", "Sgt. Ford") or an initial ("the U.S. trade
deficit", "J. K. Rowling", also after a Chinese character: "73岁的J. Smith"), nor before a
lowercase word: a sentence does not start with one, an abbreviation goes on ("peanut butter
etc. and have a few gift cards")."""


def sentence_pieces(line: str) -> list[str]:
    """``line`` cut after every sentence end; the pieces are exact substrings, in order, and
    the last one is whatever follows the last end (possibly empty)."""
    pieces: list[str] = []
    start = 0
    for match in SENTENCE_END.finditer(line):
        pieces.append(line[start : match.end()])
        start = match.end()
    pieces.append(line[start:])
    return pieces


# --- terms ----------------------------------------------------------------------------------


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def numbers_in(text: str) -> frozenset[str]:
    """The numbers ``text`` states, as written ("4800", "1,200", "2.5")."""
    return frozenset(_NUMBER.findall(text))


def words(text: str) -> list[str]:
    """A word list written as one string (easier to read and extend than a list literal)."""
    return text.split()


STOP_CHARS = frozenset("的了是和与及或也都就我你您他她它们这那吗呢吧啊")
"""Function characters: a bigram holding one is not a content term."""
_QUESTION_STOP_CHARS = STOP_CHARS | frozenset("呀么还")
_CLAIM_STOP_CHARS = STOP_CHARS | frozenset("在")
"""Each reader's own few extra characters, as they were measured: merging the two lists would
change which sentences the offline answerer quotes and what the checker accepts."""
_ZH_QUESTION_WORDS = re.compile(
    r"多少|什么|怎么|怎样|如何|为什么|哪些|哪个|哪里|是否|能否|可以|请问|多久|多长"
)
"""Question words separate content words instead of forming bigrams with them."""
GENERIC_ZH = frozenset(
    words(
        "可以 我们 你们 他们 如果 需要 进行 没有 这个 那个 一个 根据 资料 原文 如下 以下 相关 按照 "
        "因为 所以 但是 已经 以及 其中 之后 之前 时候 主要 通过 由于 其他 什么 怎么 如何 哪些 一些 "
        "一共 还有 就是 或者 并且 而且 同时 可能 应该 不能 不会 这些 那些 目前 之间 一样 比如 例如 "
        "包括"
    )
)
"""Bigrams generic enough to appear in any answer: they prove nothing about a source."""
EN_STOPWORDS = frozenset(
    words(
        "a an the of to in on at for from by with and or but is are was were be been being do does "
        "did have has had can could would should will shall may might must i you he she it we they "
        "me my your our their this that these those what which who whom whose when where why how "
        "there here if then than so not no any some about into as up out get"
    )
)
_EN_STOP_STEMS = EN_STOPWORDS | frozenset(english_stems(EN_STOPWORDS))
_CLAIM_STOPWORDS = EN_STOPWORDS | frozenset(
    words("also per each only documents document written source sources")
)
"""Words an answer uses about itself ("the documents say…", "per source…")."""
_WORD = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*")


def fold_plural(word: str) -> str:
    """ "refunds" should find "refund": a crude plural fold is enough for overlap."""
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def _question_bigrams(run: str) -> set[str]:
    found: set[str] = set()
    stop = "[" + "".join(sorted(_QUESTION_STOP_CHARS)) + "]"
    for part in re.split(stop, _ZH_QUESTION_WORDS.sub(" ", run)):
        part = part.strip()
        if len(part) == 1:
            found.add(part)
        found.update(part[i : i + 2] for i in range(len(part) - 1))
    return found


def match_terms(text: str) -> set[str]:
    """Terms to match a question with a sentence: CJK bigrams (a lone character counts on its
    own), split at function characters and question words, and English words as stems."""
    lowered = text.lower()
    found: set[str] = set()
    run: list[str] = []
    for char in lowered + "\n":
        if is_ideograph(char):
            run.append(char)
        elif run:
            found |= _question_bigrams("".join(run))
            run = []
    found.update(english_stems(w for w in _WORD.findall(lowered) if w not in EN_STOPWORDS))
    return found


def claim_terms(text: str) -> set[str]:
    """Content terms of a claim: CJK bigrams and English words, minus the generic ones."""
    found: set[str] = set()
    for feature in features(without_markers(text)):
        if len(feature) == 2 and not feature.isascii():
            if not _CLAIM_STOP_CHARS.intersection(feature) and feature not in GENERIC_ZH:
                found.add(feature)
        elif (
            feature.isascii()
            and any(c.isalpha() for c in feature)
            and len(feature) > 1
            and feature not in _CLAIM_STOPWORDS
        ):
            found.add(fold_plural(feature))
    return found


# --- questions -------------------------------------------------------------------------------

_QUERY_STOP_CHARS = _QUESTION_STOP_CHARS | frozenset("啥咋嘛哪个些怎样请问")
_QUERY_STOP_BIGRAMS = frozenset(
    words(
        "多少 什么 怎么 怎样 如何 为什 么样 哪些 哪个 哪里 是否 能否 可以 请问 多久 多长 一下 "
        "有没 没有"
    )
)


_HOW_DOES_IT_WORK = re.compile(r"(怎么|如何|怎样|咋)算")
"""``转班怎么算`` asks how transfers work, not for a calculation: the 算 of the idiom is question
wording, and left in it ranks every section about 计算 above the one about 转班."""


def query_terms(text: str) -> list[str]:
    """What search looks up for a question: its :func:`search_terms` without the words that
    only make it a question — English stopwords, Chinese function characters and question words
    ("how many … do we", "咋…啊", "有没有…吗") and the bigrams that straddle them.

    They are in every passage or in none, so they only blur how much of what the question
    *names* a passage holds: measured (lexical gate AUROC, answerable vs not) on
    cmrc2018-trial 0.976 → 0.983 and on realdocs-tune en-18f 0.779 → 0.798, zh-apisix
    0.684 → 0.707. Passages are indexed whole (:func:`search_terms`)."""
    found: list[str] = []
    for term in search_terms(_HOW_DOES_IT_WORK.sub(r"\1", text)):
        if term.isascii():
            if term in _EN_STOP_STEMS:
                continue
        elif len(term) == 1:
            if term in _QUERY_STOP_CHARS:
                continue
        elif term in _QUERY_STOP_BIGRAMS or not _QUERY_STOP_CHARS.isdisjoint(term):
            continue
        found.append(term)
    return found
