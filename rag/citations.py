"""The citation checker: an answer reaches the asker only if its citations hold up.

A model handed the right passages can still write "口语课一共六级[3]" or "按剩余课时的 80% 退[7]".
:func:`check` reads a draft against the hits it was written from and names every problem:

``unknown_reference``
    a ``[n]`` outside 1..len(hits). Markers are read in the forms models write: ``[1]``,
    ``[1][2]``, ``[1, 2]``, ``[1-3]``, ``［1］``, ``【1】``, ``【1，2】``.
``no_citation``
    an answer that cites nothing (refusals are exempt), or a sentence stating a fact (a
    quantity, or at least three content terms) that no citation covers while others cite.
``ungrounded_number``
    a quantity that appears neither in the sources its sentence cites, nor in the question,
    nor as a result of correct arithmetic written in the answer (see :mod:`rag.numbers`).
``wrong_arithmetic``
    a written-out calculation whose sides disagree (see :mod:`rag.arithmetic`).
``unrelated_source``
    a cited source that shares no content term with the sentence citing it.

Which citations cover a sentence: its own markers; else those of the next sentence of its
paragraph that has markers ("A。B[1]。" — the [1] covers both). A sentence after the last
marker of its paragraph is uncovered; its numbers are checked against the sources its
paragraph cites, else those the whole answer cites. Lead-ins ending in a colon ("资料原文如下：",
"计算如下："), headings, and courtesy or "the documents don't say" sentences need no citation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.arithmetic import Calculation, calculations
from rag.language import Language, detect_language
from rag.lexical import features
from rag.messages import is_refusal_text
from rag.numbers import Quantity, number_values, quantities, words
from rag.problem_texts import ProblemTexts
from rag.results import Hit

KINDS = frozenset(
    {
        "unknown_reference",
        "no_citation",
        "ungrounded_number",
        "wrong_arithmetic",
        "unrelated_source",
    }
)
SUBSTANTIVE_TERMS = 3
"""A sentence with no quantity states a fact when it has at least this many content terms."""

MIN_TERMS_TO_JUDGE = 2
"""Fewer content terms than this and a sentence is too thin to judge which source it is from."""
TELLING_NUMBER = 10
"""A shared number at least this large links a sentence to its source (4800, 2024, 45)."""

_DIGIT = "0-9０-９"
MARKER = re.compile(rf"[\[［【]\s*([{_DIGIT}]+(?:\s*[,，、;；\-–—~～]\s*[{_DIGIT}]+)*)\s*[\]］】]")
_MARKER_PART = re.compile(rf"([{_DIGIT}]+)(?:\s*[\-–—~～]\s*([{_DIGIT}]+))?")
MAX_RANGE = 20
"""``[1-3]`` means 1, 2, 3; a wider range is read as its two ends."""

_SENTENCE_END = re.compile(r"[。！？；!?]+[”’」』）)\"']*|\.(?=\s|$)[”’\"')]*")
_LEADING_MARKERS = re.compile(rf"^\s*(?:{MARKER.pattern}\s*)+")
_BLOCK_START = re.compile(
    r"^\s*(?:[-*+•>|]|#{1,6}\s|\d{1,2}(?:[.．](?!\d)|[)、])|[(（]\d{1,2}[)）]|[一二三四五六七八九十]+、)"
)
_LIST_MARKER = re.compile(
    r"^\s*(?:[-*+•>]+|#{1,6}|\d{1,2}(?:[.．](?!\d)|[)、])|[(（]\d{1,2}[)）]|[一二三四五六七八九十]+、)\s*"
)
_HEADING_LINE_CHARS = 20
_EXEMPT = re.compile(
    r"希望.{0,8}帮助|如有(?:疑问|问题|其他)|欢迎.{0,4}(?:咨询|提问)"
    r"|(?:资料|文档|来源)[里中]?(?:没有|未|并未|没)(?:写|提到|提及|说明|涉及|给出)"
    r"|hope (?:this|that) helps|let me know|feel free"
    r"|(?:documents?|sources?) (?:do(?:es)?n't|do(?:es)? not) (?:say|cover|mention|specify)"
    r"|not (?:mentioned|specified|covered|stated) in",
    re.IGNORECASE,
)
_STOP_CHARS = frozenset("的了是在和与及或也都就我你您他她它们这那吗呢吧啊")
_GENERIC = frozenset(
    words(
        "可以 我们 你们 他们 如果 需要 进行 没有 这个 那个 一个 根据 资料 原文 如下 以下 相关 按照 "
        "因为 所以 但是 已经 以及 其中 之后 之前 时候 主要 通过 由于 其他 什么 怎么 如何 哪些 一些 "
        "一共 还有 就是 或者 并且 而且 同时 可能 应该 不能 不会 这些 那些 目前 之间 一样 比如 例如 "
        "包括"
    )
)
_EN_STOPWORDS = frozenset(
    words(
        "a an the of to in on at for from by with and or but is are was were be been being do does "
        "did have has had can could would should will shall may might must i you he she it we they "
        "me my your our their this that these those what which who whom whose when where why how "
        "there here if then than so not no any some about into as up out get also per each only "
        "documents document written source sources"
    )
)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an answer, named for a reviewer in the answer's language."""

    kind: str
    message: str
    sentence: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            msg = f"problem kind {self.kind!r} is not one of {sorted(KINDS)}"
            raise ValueError(msg)


@dataclass(frozen=True, slots=True)
class Report:
    problems: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def messages(self) -> tuple[str, ...]:
        return tuple(problem.message for problem in self.problems)


def _marker_numbers(body: str) -> list[int]:
    numbers: list[int] = []
    for match in _MARKER_PART.finditer(body.translate(_WIDE_DIGITS)):
        first = int(match[1])
        last = int(match[2]) if match[2] else first
        low, high = min(first, last), max(first, last)
        numbers.extend(range(low, high + 1) if high - low <= MAX_RANGE else (low, high))
    return numbers


_WIDE_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")


def cited_numbers(text: str) -> list[int]:
    """Every ``[n]`` the text cites, ascending, unique (out-of-range ones included)."""
    return sorted({n for match in MARKER.finditer(text) for n in _marker_numbers(match[1])})


@dataclass(frozen=True, slots=True)
class _Sentence:
    text: str
    """As written, markers included (what a reviewer is shown)."""
    plain: str
    """Markers removed, list marker stripped: what numbers and terms are read from."""
    cites: tuple[int, ...]
    paragraph: int
    whole_line: bool


def _pieces(line: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(line):
        pieces.append(line[start : match.end()])
        start = match.end()
    pieces.append(line[start:])
    merged: list[str] = []
    for piece in pieces:
        leading = _LEADING_MARKERS.match(piece)
        if leading and merged:  # "…3420 元。[1]": the marker belongs to the sentence before it
            merged[-1] += leading.group()
            piece = piece[leading.end() :]
        if piece.strip():
            merged.append(piece)
    return merged


def sentences(text: str) -> list[_Sentence]:
    found: list[_Sentence] = []
    paragraph = 0
    for line in text.splitlines():
        if not line.strip() or _BLOCK_START.match(line):
            paragraph += 1
        pieces = _pieces(line)
        for piece in pieces:
            plain = _LIST_MARKER.sub("", MARKER.sub(" ", piece)).strip()
            if not any(char.isalnum() for char in plain):
                if found and MARKER.search(piece):
                    last = found[-1]
                    cites = tuple(sorted({*last.cites, *cited_numbers(piece)}))
                    found[-1] = _Sentence(last.text + piece, last.plain, cites, last.paragraph,
                                          last.whole_line)  # fmt: skip
                continue
            cites = tuple(cited_numbers(piece))
            found.append(_Sentence(piece.strip(), plain, cites, paragraph, len(pieces) == 1))
    return found


def terms(text: str) -> set[str]:
    """Content terms: Chinese character bigrams and English words, minus the generic ones."""
    found: set[str] = set()
    for feature in features(MARKER.sub(" ", text)):
        if len(feature) == 2 and not feature.isascii():
            if not _STOP_CHARS.intersection(feature) and feature not in _GENERIC:
                found.add(feature)
        elif (
            feature.isascii()
            and any(c.isalpha() for c in feature)
            and len(feature) > 1
            and feature not in _EN_STOPWORDS
        ):
            found.add(feature[:-1] if len(feature) > 3 and feature.endswith("s") else feature)
    return found


def _needs_source(sentence: _Sentence, has_quantity: bool) -> bool:
    plain = sentence.plain
    if has_quantity:
        return True
    if plain.endswith((":", "：")) or _EXEMPT.search(plain):
        return False
    if (
        sentence.whole_line
        and len(plain) <= _HEADING_LINE_CHARS
        and not _SENTENCE_END.search(plain)
    ):
        return False  # a heading or a label line
    return len(terms(plain)) >= SUBSTANTIVE_TERMS


@dataclass(slots=True)
class _Sources:
    hits: Sequence[Hit]
    _numbers: dict[int, frozenset[float]]
    _terms: dict[int, set[str]]

    def text(self, n: int) -> str:
        chunk = self.hits[n - 1].chunk
        return "\n".join((chunk.title, *chunk.heading, chunk.text))

    def numbers(self, n: int) -> frozenset[float]:
        if n not in self._numbers:
            self._numbers[n] = number_values(self.text(n))
        return self._numbers[n]

    def terms(self, n: int) -> set[str]:
        if n not in self._terms:
            self._terms[n] = terms(self.text(n))
        return self._terms[n]

    def language(self, n: int) -> Language:
        return detect_language(self.hits[n - 1].chunk.text)


def check(text: str, hits: Sequence[Hit], *, question: str = "") -> Report:
    """Every problem with ``text``'s citations against ``hits`` (``[n]`` = ``hits[n - 1]``).

    ``question``, when given, grounds the numbers the asker supplied ("还剩 12 课时").
    """
    language = detect_language(text)
    if is_refusal_text(text):
        return Report()
    say = ProblemTexts(language, len(hits))
    problems: list[Problem] = []
    found = sentences(text)
    valid = range(1, len(hits) + 1)
    cited_anywhere = [n for n in cited_numbers(text) if n in valid]
    if not found or not cited_numbers(text):
        problems.append(Problem("no_citation", say.no_citation_at_all()))
    for sentence in found:
        for n in sentence.cites:
            if n not in valid:
                problems.append(Problem("unknown_reference", say.unknown(n), sentence.text))

    covering = _covering(found)
    calcs = [calculations(sentence.plain) for sentence in found]
    produced = frozenset().union(*(c.produced for cs in calcs for c in cs if c.ok))
    sources = _Sources(hits, {}, {})
    given = number_values(question)
    for index, sentence in enumerate(found):
        amounts = quantities(sentence.plain)
        cover = covering[index]
        if cover is None and cited_anywhere and _needs_source(sentence, bool(amounts)):
            problems.append(Problem("no_citation", say.uncited(sentence.text), sentence.text))
        for calc in calcs[index]:
            if not calc.ok:
                problems.append(Problem("wrong_arithmetic", say.arithmetic(calc), sentence.text))
        refs = _applicable(found, index, cover, cited_anywhere, len(hits))
        if refs is None:
            continue  # cites only numbers that don't exist: unknown_reference says it
        allowed = given | produced
        allowed = allowed.union(*(sources.numbers(n) for n in refs))
        missing = [q for q in amounts if not _grounded(q, allowed, calcs[index])]
        if missing:
            shown = refs if cited_anywhere else ()
            problems.append(Problem("ungrounded_number", say.ungrounded(missing, shown),
                                    sentence.text))  # fmt: skip
        if sentence.cites:
            problems.extend(_unrelated(found, index, covering, sources, say))
    return Report(tuple(dict.fromkeys(problems)))


def _covering(found: Sequence[_Sentence]) -> list[int | None]:
    """For each sentence, the index of the sentence whose markers cover it, or None."""
    covering: list[int | None] = [None] * len(found)
    next_cited: int | None = None
    for index in range(len(found) - 1, -1, -1):
        sentence = found[index]
        if index + 1 < len(found) and found[index + 1].paragraph != sentence.paragraph:
            next_cited = None
        if sentence.cites:
            next_cited = index
        covering[index] = next_cited
    return covering


def _applicable(
    found: Sequence[_Sentence],
    index: int,
    cover: int | None,
    cited_anywhere: Sequence[int],
    n_hits: int,
) -> tuple[int, ...] | None:
    """The sources a sentence's numbers are checked against (None: only unknown numbers)."""
    if cover is not None:
        refs = tuple(n for n in found[cover].cites if 1 <= n <= n_hits)
        return refs or None
    paragraph = found[index].paragraph
    in_paragraph = {
        n for s in found if s.paragraph == paragraph for n in s.cites if 1 <= n <= n_hits
    }
    if in_paragraph:
        return tuple(sorted(in_paragraph))
    return tuple(cited_anywhere) or tuple(range(1, n_hits + 1))


def _grounded(quantity: Quantity, allowed: frozenset[float], calcs: list[Calculation]) -> bool:
    if quantity.values & allowed:
        return True
    # The stated result of a wrong calculation: wrong_arithmetic already names it.
    return any(quantity.values <= calc.claimed for calc in calcs if not calc.ok)


def _unrelated(
    found: Sequence[_Sentence],
    index: int,
    covering: Sequence[int | None],
    sources: _Sources,
    say: ProblemTexts,
) -> list[Problem]:
    """Cited sources that share neither a content term nor a telling number with the sentences
    the markers cover. Sentences of fewer than two content terms ("应退 3420 元[1]") are left
    to the number rule; numbers below 10 are too common to tell sources apart."""
    group = " ".join(found[j].plain for j in range(index + 1) if covering[j] == index)
    wanted = terms(group)
    if len(wanted) < MIN_TERMS_TO_JUDGE:
        return []
    telling = {v for q in quantities(group) for v in q.values if v >= TELLING_NUMBER}
    language = detect_language(group)
    problems: list[Problem] = []
    for n in found[index].cites:
        if not 1 <= n <= len(sources.hits) or sources.language(n) != language:
            continue  # another language: a translation can't be compared term by term
        if not wanted & sources.terms(n) and not telling & sources.numbers(n):
            problems.append(Problem("unrelated_source", say.unrelated(n, group), found[index].text))
    return problems
