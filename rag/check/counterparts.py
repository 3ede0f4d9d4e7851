"""What a cited source has instead of a name or number the answer got wrong.

"The answer says 「弗拉德里希」; [1] names 「施泰因迈尔」" lets a reviewer fix a draft without
reading the whole source. It runs only for sentences already blamed (ungrounded names and
numbers), and stays cheap: the source's things *of the same kind* — a jieba-tagged person,
place, organisation or other name, a code, a quoted term, a number with the same unit — and of
those the one *nearest* to where the words around the answer's thing occur in the source
("总统弗拉德里希" -> the name next to 总统). Nothing is suggested when the source has no such
thing, or only ones the sentence says too: a wrong guess would mislead more than silence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import jieba
import jieba.posseg

from rag.check.entities import ZH_NAME_TAGS, named_things
from rag.check.numbers import Quantity, quantities
from rag.language import Language
from rag.reading import EN_STOPWORDS, fold_plural

ANCHORS_EACH_SIDE = 2
"""Words taken before and after the answer's thing to find its place in the source."""
UNIT_LOOKAHEAD = 6
"""Characters after a number read for its unit ("四个级别" is a count of 级)."""

UNIT_WORD = 3
"""A following word this short is shown whole with its number ("四个级别", not "四个级")."""

_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_NEXT_WORD = re.compile(r"\s*([A-Za-z][A-Za-z'-]+)")
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
    wanted = _Spot(name, at, at + len(name), _name_kind(name, language))
    said = sentence.casefold()
    best: tuple[tuple[int, float], Instead] | None = None
    for ref, text in sources:
        spots = [
            spot
            for spot in _names(text, language)
            if spot.kind == wanted.kind
            and spot.text.casefold() not in said
            and name.casefold() not in spot.text.casefold()
        ]
        best = _nearer(best, ref, wanted, sentence, text, spots, language)
    return None if best is None else best[1]


def number_instead(
    quantity: Quantity, sentence: str, sources: Sequence[tuple[int, str]], language: Language
) -> Instead | None:
    """The amount with ``quantity``'s unit that a cited source gives in its place."""
    unit = _unit(quantity, sentence)
    stated = {v for q in quantities(sentence) for v in q.values}
    wanted = _Spot(quantity.text, quantity.start, quantity.end, unit)
    best: tuple[tuple[int, float], Instead] | None = None
    for ref, text in sources:
        spots = []
        for found in quantities(text):
            if found.ordinal != quantity.ordinal or found.values & stated:
                continue
            spot = _same_unit(found, text, unit)
            if spot is not None:
                spots.append(spot)
        best = _nearer(best, ref, wanted, sentence, text, spots, language)
    return None if best is None else best[1]


def _nearer(
    best: tuple[tuple[int, float], Instead] | None,
    ref: int,
    wanted: _Spot,
    sentence: str,
    text: str,
    spots: Sequence[_Spot],
    language: Language,
) -> tuple[tuple[int, float], Instead] | None:
    """``best`` or the nearest of ``spots`` in source ``ref``, whichever is nearer.

    Near means: closest to where the sentence's words around ``wanted`` occur in the source
    (anchored); without such words, closest by relative position (ranked after any anchored).
    """
    before, after = _anchors(sentence, wanted, language)
    folded = text.lower()
    ends = [m + len(word) for word in before for m in _occurrences(folded, word)]
    starts = [m for word in after for m in _occurrences(folded, word)]
    relative = wanted.start / max(1, len(sentence))
    for spot in spots:
        distances = [abs(spot.start - end) for end in ends]
        distances += [abs(start - spot.end) for start in starts]
        if distances:
            score: tuple[int, float] = (0, float(min(distances)))
        else:
            score = (1, abs(spot.start / max(1, len(text)) - relative))
        if best is None or score < best[0]:
            best = (score, Instead(ref, spot.text))
    return best


def _occurrences(text: str, word: str) -> list[int]:
    return [match.start() for match in re.finditer(re.escape(word), text)]


def _anchors(sentence: str, wanted: _Spot, language: Language) -> tuple[list[str], list[str]]:
    """Up to ANCHORS_EACH_SIDE meaningful words right before and right after ``wanted``."""
    words = list(_words(sentence, language))
    before = [w for w, start, end in words if end <= wanted.start]
    after = [w for w, start, end in words if start >= wanted.end]
    return before[-ANCHORS_EACH_SIDE:], after[:ANCHORS_EACH_SIDE]


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
        return "name"
    flags = [pair.flag for pair in _tagged(name)]
    return _tag_kind(flags[0]) if len(flags) == 1 or all(f in ZH_NAME_TAGS for f in flags) else ""


def _tag_kind(flag: str) -> str:
    return "person" if flag.startswith("nr") else flag


@lru_cache(maxsize=256)
def _tagged(text: str) -> tuple[jieba.posseg.pair, ...]:
    return tuple(jieba.posseg.lcut(text))


@lru_cache(maxsize=256)
def _names(text: str, language: Language) -> tuple[_Spot, ...]:
    """The names in ``text`` with where they stand; Chinese runs of name-tagged words are
    joined (jieba tags "施泰因迈尔" as 施泰因 + 迈尔)."""
    spots: dict[tuple[int, int], _Spot] = {}
    if language == "zh":
        at = 0
        run: list[tuple[str, int]] = []
        for pair in (*_tagged(text), None):
            if pair is not None and pair.flag in ZH_NAME_TAGS:
                run.append((pair.flag, at))
            elif run:
                start, word = run[0][1], text[run[0][1] : at]
                if len(word) >= 2:
                    spots[start, at] = _Spot(word, start, at, _tag_kind(run[0][0]))
                run = []
            at += len(pair.word) if pair is not None else 0
    for thing in named_things(text, language):
        for start in _occurrences(text, thing):
            if not any(s <= start < e for s, e in spots):
                kind = _name_kind(thing, language)
                spots[start, start + len(thing)] = _Spot(thing, start, start + len(thing), kind)
    return tuple(spots.values())


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
