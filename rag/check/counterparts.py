"""What a cited source has instead of a name or number the answer got wrong.

"The answer says 「弗拉德里希」; [1] names 「施泰因迈尔」" lets a reviewer fix a draft without
reading the whole source. It runs only for sentences already blamed (ungrounded names and
numbers) and only reads the source around its *anchors* — the words next to the answer's
thing in the sentence ("总统弗拉德里希周二" -> 总统, 周二) where they occur in the source.
A candidate is a thing of the same kind (a jieba-tagged person, place, organisation or other
name; a capitalised name, acronym, code or quoted term; a number with the same unit) that the
sentence does not say, standing where an anchor predicts the answer's thing (as far from the
anchor as in the sentence, give or take MAX_SLACK characters). Nothing is suggested otherwise:
a wrong suggestion would mislead more than silence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import jieba

from rag.check.entities import named_things
from rag.check.numbers import Quantity, quantities
from rag.check.zh_names import ZH_NAME_TAGS, zh_names
from rag.language import Language
from rag.reading import EN_STOPWORDS, fold_plural

if TYPE_CHECKING:
    import jieba.posseg

ANCHORS_EACH_SIDE = 2
"""Words taken before and after the answer's thing to find its place in the source."""
MAX_SLACK = 8
"""How far (characters) a candidate may stand from where an anchor word predicts the answer's
thing — the same distance from it as in the sentence. Further away it is a guess, and a wrong
suggestion misleads a reviewer more than none."""
WINDOW_CHARS = 32
MAX_WINDOWS = 4
"""Candidates are read only in stretches this wide around the anchors found in a source (a
part-of-speech pass over a whole page would cost more than the checker itself)."""
UNIT_LOOKAHEAD = 6
"""Characters after a number read for its unit ("四个级别" is a count of 级)."""

UNIT_WORD = 3
"""A following word this short is shown whole with its number ("四个级别", not "四个级")."""

_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_NEXT_WORD = re.compile(r"\s*([a-z][A-Za-z'-]+)")  # a unit: "20 days", not "1753 New"
_NOT_NUMERAL = re.compile(r"[^\d.,\s零〇一二两三四五六七八九十百千万亿点]+")
_UNIT_END = re.compile(r"[，。；：、,.;:!?！？()（）\[\]【】\n]")


@dataclass(frozen=True, slots=True)
class Instead:
    """What source ``ref`` has in the place of the answer's thing."""

    ref: int
    text: str


@dataclass(frozen=True, slots=True)
class _Spot:
    text: str
    start: int
    end: int
    kind: str


def name_instead(
    name: str, sentence: str, sources: Sequence[tuple[int, str]], language: Language
) -> Instead | None:
    """The name of ``name``'s kind that a cited source gives where the sentence has ``name``."""
    at = sentence.find(name)
    if at < 0:
        return None
    kind = _name_kind(name, language)
    said = sentence.casefold()

    def candidates(piece: str) -> Iterable[_Spot]:
        for spot in _names(piece, language):
            folded = spot.text.casefold()
            if spot.kind == kind and folded not in said and name.casefold() not in folded:
                yield spot

    return _instead(_Spot(name, at, at + len(name), kind), sentence, sources, language, candidates)


def number_instead(
    quantity: Quantity, sentence: str, sources: Sequence[tuple[int, str]], language: Language
) -> Instead | None:
    """The amount with ``quantity``'s unit that a cited source gives in its place."""
    unit = _unit(quantity, sentence)
    stated = {v for q in quantities(sentence) for v in q.values}

    def candidates(piece: str) -> Iterable[_Spot]:
        for amount in quantities(piece):
            if amount.ordinal == quantity.ordinal and not amount.values & stated:
                spot = _same_unit(amount, piece, unit)
                if spot is not None:
                    yield spot

    wanted = _Spot(quantity.text, quantity.start, quantity.end, unit)
    return _instead(wanted, sentence, sources, language, candidates)


@dataclass(frozen=True, slots=True)
class _Anchor:
    """A word next to the answer's thing, ``gap`` characters before (or after) it."""

    word: str
    gap: int
    before: bool


def _instead(
    wanted: _Spot,
    sentence: str,
    sources: Sequence[tuple[int, str]],
    language: Language,
    candidates: Callable[[str], Iterable[_Spot]],
) -> Instead | None:
    """The candidate standing where the anchors put ``wanted``, in the first source of the
    closest fit; ``None`` when no candidate fits within MAX_SLACK."""
    anchors = _anchors(sentence, wanted, language)
    best: tuple[int, Instead] | None = None
    for ref, text in sources:
        found = _found(text.lower(), anchors)
        for offset, piece in _pieces(text, [at for _, at in found]):
            for spot in candidates(piece):
                slack = _slack(spot.start + offset, spot.end + offset, found)
                if slack is not None and (best is None or slack < best[0]):
                    best = (slack, Instead(ref, spot.text))
    return None if best is None else best[1]


def _anchors(sentence: str, wanted: _Spot, language: Language) -> list[_Anchor]:
    words = list(_words(sentence, language))
    before = [_Anchor(w, wanted.start - end, True) for w, _, end in words if end <= wanted.start]
    after = [_Anchor(w, start - wanted.end, False) for w, start, _ in words if start >= wanted.end]
    return before[-ANCHORS_EACH_SIDE:] + after[:ANCHORS_EACH_SIDE]


def _found(folded: str, anchors: Sequence[_Anchor]) -> list[tuple[_Anchor, int]]:
    """Each anchor's occurrences in a source: where it ends (a word before) or starts."""
    return [
        (anchor, at + len(anchor.word) if anchor.before else at)
        for anchor in anchors
        for at in _occurrences(folded, anchor.word)
    ]


def _slack(start: int, end: int, found: Sequence[tuple[_Anchor, int]]) -> int | None:
    """How far a candidate at ``start:end`` stands from where the best anchor predicts."""
    slacks = [
        abs((start - at if anchor.before else at - end) - anchor.gap)
        for anchor, at in found
        if (start >= at if anchor.before else at >= end)
    ]
    best = min(slacks, default=MAX_SLACK + 1)
    return best if best <= MAX_SLACK else None


def _pieces(text: str, anchors: Sequence[int]) -> list[tuple[int, str]]:
    """The stretches of ``text`` around the anchors, as (offset, text)."""
    spans: list[list[int]] = []
    for at in sorted(anchors):
        start, end = max(0, at - WINDOW_CHARS), min(len(text), at + WINDOW_CHARS)
        if spans and start <= spans[-1][1]:
            spans[-1][1] = end
        elif len(spans) < MAX_WINDOWS:
            spans.append([start, end])
    return [(start, text[start:end]) for start, end in spans]


def _occurrences(text: str, word: str) -> list[int]:
    return [match.start() for match in re.finditer(re.escape(word), text)]


def _words(text: str, language: Language) -> Iterable[tuple[str, int, int]]:
    if language == "zh":
        for word, start, end in jieba.tokenize(text):
            if len(word) >= 2 and all(char.isalpha() for char in word):
                yield word.lower(), start, end
        return
    for match in _EN_WORD.finditer(text):
        word = match.group().lower()
        if len(word) >= 3 and word not in EN_STOPWORDS:
            yield word, match.start(), match.end()


def _name_kind(name: str, language: Language) -> str:
    if any(char.isdigit() for char in name):
        return "code"
    if language != "zh":
        if " " in name or not name[:1].isupper():
            return "term"  # a quoted phrase
        return "acronym" if name.isupper() else "name"
    found = zh_names(name)
    if len(found) == 1 and found[0].text == name:
        return _tag_kind(found[0].flag)
    flags = [pair.flag for pair in _tagged(name)]
    return _tag_kind(flags[0]) if len(flags) == 1 or all(f in ZH_NAME_TAGS for f in flags) else ""


def _tag_kind(flag: str) -> str:
    return "person" if flag.startswith("nr") else flag


@lru_cache(maxsize=256)
def _tagged(text: str, *, guess: bool = True) -> tuple[jieba.posseg.pair, ...]:
    """jieba's tags; ``guess``: with its HMM for words not in the dictionary (4x the time)."""
    import jieba.posseg  # the tagger's dictionary loads when a first answer needs it

    return tuple(jieba.posseg.lcut(text, HMM=guess))


@lru_cache(maxsize=256)
def _names(text: str, language: Language) -> tuple[_Spot, ...]:
    """The names in ``text`` with where they stand."""
    if language == "zh":
        return _zh_names(text)
    spots: dict[int, _Spot] = {}
    for thing in named_things(text, language):
        for start in _occurrences(text, thing):
            if not any(spot.start <= start < spot.end for spot in spots.values()):
                spots[start] = _Spot(thing, start, start + len(thing), _name_kind(thing, language))
    return tuple(spots.values())


def _zh_names(text: str) -> tuple[_Spot, ...]:
    """The names jieba's dictionary knows in ``text`` (tagging sources with its HMM too cost
    more than the checker). Quoted terms are left out: finding them would tag it again."""
    return tuple(
        _Spot(name.text, name.start, name.end, _tag_kind(name.flag))
        for name in zh_names(text, guess=False)
        if len(name.text) >= 2
    )


def _unit(quantity: Quantity, text: str) -> str:
    """``六级`` -> 级, ``80%`` -> %, ``12 months`` -> month (the word after an English number)."""
    unit = "".join(_NOT_NUMERAL.findall(quantity.text)).strip()
    if unit:
        return unit.lower()
    word = _NEXT_WORD.match(text, quantity.start + len(quantity.text))
    return fold_plural(word.group(1).lower()) if word else ""


def _same_unit(found: Quantity, text: str, unit: str) -> _Spot | None:
    """``found`` as a spot if it counts the same thing as ``unit``: its own unit, or the word
    right after it ("四个级别" counts 级)."""
    end = found.start + len(found.text)
    if _unit(found, text) == unit:
        word = None if unit in found.text.lower() else _NEXT_WORD.match(text, end)
        shown = text[found.start : word.end()] if word else found.text  # "20 days", not "20"
        return _Spot(shown, found.start, found.end, unit)
    following = _UNIT_END.split(text[end : end + UNIT_LOOKAHEAD], maxsplit=1)[0]
    if unit and unit in following.lower():
        # the whole word when it is short ("四个级别"), else up to the unit
        at = following.lower().index(unit) + len(unit)
        shown = text[found.start : end + (len(following) if len(following) <= UNIT_WORD else at)]
        return _Spot(shown, found.start, found.end, unit)
    return None
