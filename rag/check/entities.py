"""Named things an answer sentence asserts, and whether its sources or the question name them.

Numbers are grounded by :mod:`rag.check.numbers`; this module does the same for the other
specific things a wrong answer tends to get wrong: people, organisations, places, products,
codes and quoted terms ("the answer says 弗拉德里希; [1] says 施泰因迈尔").

* Chinese: jieba's part-of-speech tagger names them (``nr`` people, ``ns`` places, ``nt``
  organisations, ``nz`` other proper nouns; :mod:`rag.check.zh_names`) — a maintained segmenter
  instead of hand rules — and a Latin word with a capital or a digit is one too ("OA 系统").
* English: capitalised words that don't start the sentence, runs of them ("Convention
  Parliament"), acronyms and codes (``TiO2``, ``PWR``, ``HR-7``), and quoted terms.

A thing is grounded when the question or a cited source contains it after NFKC folding and
casefolding; a multi-word English name is grounded when each of its words is (sources write
"Charles II's restoration" for "the restoration of Charles II"), and a word matches by its
stem too ("British" ↔ "Britain" does not, "Americans" ↔ "American" does). Known variants
count: an acronym and the name it stands for ("HR" / "Human Resources", "U.S." / "United
States"), an acronym with or without its dots ("BC" / "B.C."), and a compound joined another
way ("Wi-Fi" / "WiFi", "PowerPoint" / "Power Point", "Super Bowl" / "superbowl").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from rag.check.currencies import same_currency
from rag.check.support import content_words
from rag.check.zh_names import (
    MIN_ZH_NAME_CHARS,
    MIN_ZH_PERSON_CHARS,
    ZhName,
    full_name,
    zh_names,
)
from rag.language import Language
from rag.reading import words

NEAR_PREFIX = 4
"""English name words of more letters may match a source word by this long a prefix."""
_NOT_NAMES = frozenset(
    words(
        "monday tuesday wednesday thursday friday saturday sunday january february march "
        "april may june july august september october november december "
        "ok am pm asap fyi eta tbd tba"
    )
)  # capitalised by convention (dates, "OK", "10 PM", "ASAP"), not names; the number rule
# reads dates and clock times

_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z0-9&]*(?:[-'’][A-Za-z0-9]+)*\b")
_CODE = re.compile(
    r"\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\b"
)
_QUOTED = re.compile(r"[\"“]([^\"“”]{3,60})[\"”]|「([^」]{2,30})」|《([^》]{2,30})》")
_OPENERS = re.compile(r"(?:[.!?:;(\[\"“*•-]|\n)\s*$")
"""What comes right before a capitalised word that starts a sentence, item or quote."""
_OPENER_LOOKBACK = 4
_TITLE_LABEL = re.compile(r"^[^:：]{1,60}[:：]\s")
"""A list item's bold title ("Signal Conditioning: a circuit …") repeats the question's terms."""
_ATTRIBUTION = re.compile(
    r"^\s*(?i:according\s+to|as\s+(?:reported|stated|noted)\s+by)\s+(?:[Tt]he\s+)?"
    r"[A-Z][\w.&'’-]*(?:\s+[A-Z][\w.&'’-]*)*"
)
"""Who the sentence says it is quoting ("According to The Balance, …"): a web page's excerpt
seldom names its own publisher, and the claim after it is checked on its own terms."""
_NOT_A_CODE = re.compile(
    r"\d+(?:\.\d+)?(?:st|nd|rd|th|s|am|pm|mins?|hrs?|ms|km|kg|mg|ml|[kmgt]b|[gm]?hz|mm|cm|mbps"
    r"|kw|k|m|bn|x)",
    re.IGNORECASE,
)
"""22nd, 1990s, 10pm, 8GB, 5min, 100k: a rank, a decade, a time or an amount with its unit (the
number rule reads those), not a code."""
_INFLECTION = re.compile(r"['’]s?$|(?:-[a-z]+)+$")
"""What a name carries that the source needn't repeat: a possessive ("Earth’s") or a
lowercase compound tail ("4IR-related", "AI-based")."""
_ACRONYM = re.compile(
    r"((?:[A-Z][\w'’-]*\s+(?:(?:of|and|for|the|on|in|de|du|&)\s+)*)*[A-Z][\w'’-]*)"
    r"\s*\(([A-Z][A-Za-z]*[A-Z])s?\)"
)
"""A name spelled out with its acronym after it: "International Court of Justice (ICJ)"."""


_COMPOUND = re.compile(r"[A-Za-z]-[A-Za-z]|[a-z][A-Z]")
"""A name written as one of several ways to join its parts: "Wi-Fi", "PowerPoint"."""
_JOINER = re.compile(r"[\s\-‐–]+")
MIN_JOINED = 4
"""Letters a joined-up name needs before it is looked for inside a run of text."""
_LATIN_WORD = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z0-9]*(?:[A-Z][A-Za-z0-9]*|[A-Za-z]\d)(?![A-Za-z0-9])"
)
"""A Latin word with a capital letter or a digit after a letter ("OA", "iPhone", "Win10")."""
_WRITTEN_ACRONYM = re.compile(r"\b(?:[A-Z]\.){2,}|\b[A-Z]{2,6}\b")
"""An acronym as a text writes it: "HR", "ICJ", "U.S." (read as "US")."""
_ACRONYM_WORD = re.compile(r"[A-Z]{2,6}s?")
_NAME_RUN = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:(?:of|and|for|the|&)\s+)*[A-Z][a-z]+)+")
"""Two or more capitalised words, with the small words a name may hold ("Court of Justice")."""
_SMALL_WORDS = frozenset({"of", "and", "for", "the", "&"})


def _spellings(run: str) -> dict[str, tuple[str, ...]]:
    """Each stretch of two or more capitalised words of ``run`` by its initials, with its words:
    "Contact the Human Resources" gives CH, CHR and HR ("Contact" may be capitalised only as
    the sentence's first word); small words stay inside a stretch but give no initial
    ("International Court of Justice" gives ICJ)."""
    words = [word for word in run.split() if word not in _SMALL_WORDS]
    return {
        "".join(word[0] for word in words[start:end]).upper(): tuple(words[start:end])
        for start in range(len(words))
        for end in range(start + 2, len(words) + 1)
    }


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _squeezed(text: str) -> str:
    """Without spaces: a Chinese quote reads the same with or without them ("秀才 。")."""
    return "".join(text.split())


@lru_cache(maxsize=1024)
def _zh_names(text: str) -> tuple[str, ...]:
    return tuple(name.text for name in zh_names(text) if _counts(name))


def _counts(name: ZhName) -> bool:
    """Long enough to be a name rather than tagging noise, or a two-character full name."""
    shortest = MIN_ZH_PERSON_CHARS if name.flag.startswith("nr") else MIN_ZH_NAME_CHARS
    return len(name.text) >= shortest or (len(name.text) == MIN_ZH_NAME_CHARS and full_name(name))


def _en_names(text: str) -> list[str]:
    names: list[str] = []
    for match in _CAPITALISED.finditer(text):
        word = match.group()
        before = text[max(0, match.start() - _OPENER_LOOKBACK) : match.start()]
        sentence_start = not before.strip() or _OPENERS.search(before) is not None
        if sentence_start and not (word.isupper() and len(word) > 1):
            continue  # "The", "However": capitalised by position, not because it's a name
        word = _INFLECTION.sub("", word)
        if not content_words(word, "en") or word.lower() in _NOT_NAMES:
            continue
        names.append(word)
    codes = (match.group() for match in _CODE.finditer(text))
    names += [_INFLECTION.sub("", code) for code in codes if not _NOT_A_CODE.fullmatch(code)]
    return [name for name in names if not name.isdigit()]


def named_things(sentence: str, language: Language) -> list[str]:
    """The specific things ``sentence`` names, in order, without repeats."""
    sentence = _ATTRIBUTION.sub("", _TITLE_LABEL.sub("", sentence))
    found = [next(part for part in match.groups() if part) for match in _QUOTED.finditer(sentence)]
    if language == "zh":
        found += [*_zh_names(sentence), *_latin_names(sentence)]
    else:
        found += _en_names(sentence)
    return list(dict.fromkeys(found))


def _latin_names(sentence: str) -> list[str]:
    """The Latin-script names in a Chinese sentence: there, a word with a capital or a digit is
    an acronym, product or code ("OA 系统", "SAP", "iPhone 15"), whatever its position."""
    names = []
    for match in _LATIN_WORD.finditer(sentence):
        word = _INFLECTION.sub("", match.group())
        if len(word) < 2 or word.isdigit() or word.lower() in _NOT_NAMES:
            continue
        if not _NOT_A_CODE.fullmatch(word):
            names.append(word)
    return names


class Grounds:
    """Texts that may name things (the cited sources and the question), folded once."""

    def __init__(self, texts: Iterable[str]) -> None:
        self._texts = list(texts)
        self._folded = [_fold(text) for text in self._texts]
        self._squeezed = [_squeezed(text) for text in self._folded]
        self._stems: frozenset[str] | None = None
        self._short: tuple[frozenset[str], frozenset[str]] | None = None
        self._joined_texts: list[str] | None = None

    def _joined_up(self, thing: str, wanted: str) -> bool:
        """A compound name ("Wi-Fi", "PowerPoint") the texts write with its parts joined
        differently: together, apart, or hyphenated."""
        joined = _JOINER.sub("", wanted)
        if not _COMPOUND.search(thing) or len(joined) < MIN_JOINED:
            return False
        return any(joined in text for text in self._joined())

    def _camel_part(self, word: str) -> bool:
        """Whether the texts write ``word`` as one part of a camel-case name: "mac" + "OS",
        "Mac" + "Book", "i" + "Phone"."""
        first = rf"(?<![A-Za-z])(?i:{re.escape(word)})(?=[A-Z][A-Za-z])"
        # a later part starts with its capital: "Point" of "PowerPoint", not "ion" of "station"
        later = rf"(?<=[a-z]){re.escape(word[0].upper())}(?i:{re.escape(word[1:])})(?![a-z])"
        camel = re.compile(f"{first}|{later}")
        return any(camel.search(text) for text in self._texts)

    def joins(self, run: str) -> bool:
        """Whether the texts write a run of capitalised words as one word: "Super Bowl" /
        "superbowl", "Hunter Girl" / "HunterGirl"."""
        joined = _JOINER.sub("", _fold(run))
        return len(joined) >= MIN_JOINED and any(
            re.search(rf"(?<![a-z0-9]){re.escape(joined)}(?![a-z0-9])", text)
            for text in self._folded
        )

    def _joined(self) -> list[str]:
        if self._joined_texts is None:
            self._joined_texts = [_JOINER.sub("", text) for text in self._folded]
        return self._joined_texts

    def short_forms(self) -> tuple[frozenset[str], frozenset[str]]:
        """The acronyms the texts write ("HR", "U.S." as "US") and the initials of the names
        they spell out ("Human Resources" as "HR"), read once."""
        if self._short is None:
            written = {
                match.group().replace(".", "")
                for text in self._texts
                for match in _WRITTEN_ACRONYM.finditer(text)
            }
            spelled = {
                initials
                for text in self._texts
                for match in _NAME_RUN.finditer(text)
                for initials in _spellings(match.group())
            }
            self._short = frozenset(written), frozenset(spelled)
        return self._short

    def name(self, thing: str) -> bool:
        """Whether the texts name ``thing`` (folded; English words may match by stem)."""
        wanted = _fold(thing)
        if not thing.isascii():
            return any(wanted in text for text in self._folded) or any(
                _squeezed(wanted) in text for text in self._squeezed
            )
        whole = re.compile(rf"(?<![a-z0-9]){re.escape(wanted)}(?![a-z0-9])")
        if any(whole.search(text) for text in self._folded):
            return True  # a whole word: "AI" is not grounded by "said"
        if " " not in thing and any(char.isdigit() for char in thing):
            # A code is grounded whole ("5IR" is not "4IR", whatever its letters), though a
            # page may have lost a subscript's formatting to a space ("TiO 2").
            return any(wanted in text for text in self._squeezed)
        if self._joined_up(thing, wanted):
            return True  # "Wi-Fi" / "WiFi", "PowerPoint" / "Power Point"
        if thing.isupper() and same_currency(thing, self._texts):
            return True  # "RMB" where the source writes "CNY", "元" or "¥"
        if thing.isalpha() and self._camel_part(thing):
            return True  # "Mac" where the source writes "macOS", "Book" in "MacBook"
        if _ACRONYM_WORD.fullmatch(thing) and thing.rstrip("s") in self.short_forms()[1]:
            return True  # "HR" where the source writes "Human Resources"
        if _ACRONYM_WORD.fullmatch(thing) and thing in self.short_forms()[0]:
            return True  # "BC" where the source writes "B.C."
        if self._stems is None:
            self._stems = frozenset().union(*(content_words(t, "en") for t in self._folded))
        return all(self._near(stem) for stem in content_words(thing, "en"))

    def _near(self, stem: str) -> bool:
        """The stem, or a word sharing all but its last few letters with it: demonyms and
        derived forms ("British" / "Britain", "English" / "England", "Indian" / "India")."""
        if stem in self._stems:  # type: ignore[operator]
            return True
        prefix = stem[: max(NEAR_PREFIX, len(stem) - 3)]
        return len(stem) > NEAR_PREFIX and any(
            held.startswith(prefix) for held in self._stems or ()
        )


def missing_names(sentence: str, language: Language, grounds: Grounds) -> list[str]:
    """The things ``sentence`` names that ``grounds`` don't.

    An acronym and the name it stands for ("International Court of Justice (ICJ)") are one
    thing: when the sources name either, the words of both are grounded.
    """
    missing = [thing for thing in named_things(sentence, language) if not grounds.name(thing)]
    if missing and language == "en":  # "United States" where the source writes "U.S."
        written = grounds.short_forms()[0]
        for run in _NAME_RUN.finditer(sentence):
            for initials, words in _spellings(run.group()).items():
                if initials in written:
                    missing = [thing for thing in missing if thing not in words]
    for run in _NAME_RUN.finditer(sentence) if missing else ():
        if grounds.joins(run.group()):
            missing = [thing for thing in missing if thing not in run.group().split()]
    for spelled, acronym in _ACRONYM.findall(sentence) if missing else ():
        words = spelled.split()
        if grounds.name(acronym) or all(grounds.name(word) for word in words):
            said = {acronym, *words, *(_INFLECTION.sub("", word) for word in words)}
            missing = [thing for thing in missing if thing not in said]
    return missing
