"""Quantities in text, normalised so that the same amount written two ways compares equal.

The citation checker must tell whether a number in an answer also appears in the sources it
cites, however either side wrote it: ``四`` and ``4``, ``两`` and ``2``, ``十二`` and ``12``,
``4,800`` and ``4800``, ``１６`` and ``16``, ``5%`` and ``百分之五`` and ``0.05``, ``3万`` and
``30000``, ``March`` and ``3``. Every quantity is reduced to a set of candidate values; two
quantities match when their sets meet.

Two readings of the same text:

* :func:`quantities` (the answer side) is strict: a Chinese numeral counts only with a unit
  after it (``六级``, ``两周``, ``十二课时``), so ``一共``, ``一些``, ``一起``, ``统一``, ``唯一``
  and ``十分`` are words, not numbers. ``一`` with a plain classifier (``一个问题``,
  ``一次性``) is the article "a", not a count. A Chinese ordinal with a unit (``第三次``,
  ``第二条``) is read as a rank, grounded by ranks as ``第 3 级`` is; ``第一`` is not (``第一时间``,
  ``第一步`` are words). Arabic digits always count, ordinals included (``第 3 级``), except
  digits glued to a letter before them: ``BiVO4``, ``H1N1``, ``Q3`` are codes (the named-thing
  rule grounds them whole), not amounts.
* :func:`source_quantities` (the source side; see :mod:`rag.check.source_numbers`) is
  generous: every numeral a source writes, with or without a unit, so a faithful answer is
  never blamed for how the source spelled a number.

Hand-written rather than taken from a library: the converters on the index (cn2an & co.)
convert whole strings, while the hard part here is deciding which spans are quantities at
all; and the one well-kept candidate ships stray top-level packages in its wheel.
"""

from __future__ import annotations

import re
from dataclasses import replace

from rag.check.clock import afternoon
from rag.check.english_numbers import SCALE_PATTERN, english, scaled
from rag.check.meta_phrases import SOURCE_NOUNS
from rag.check.quantity import Quantity as Quantity
from rag.check.quantity import key as key
from rag.reading import words

_FULL_WIDTH = str.maketrans("０１２３４５６７８９％．", "0123456789%.")

ZH_DIGITS = {
    "零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4,
    "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
}  # fmt: skip
_ZH_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_ZH_BIG_UNITS = {"万": 10_000, "亿": 100_000_000}
ZH_NUMERALS = "零〇一二两三四五六七八九十百千万亿"
"""The characters Chinese numerals are written with."""
_ZH_RUN = re.compile(rf"[{ZH_NUMERALS}]+(?:点[零〇一二三四五六七八九]+)?")
_ZH_FRACTION = re.compile(
    rf"(?<![{ZH_NUMERALS}\d])([{ZH_NUMERALS}]+|\d+)分之([{ZH_NUMERALS}]+(?:点[零〇一二三四五六七八九]+)?|\d+(?:\.\d+)?)"
)

UNITS = tuple(
    sorted(
        words(
            "个工作日 个自然日 个日历日 个钟头 钟头 个百分点 个季度 百分点 季度 周年 周岁 "
            "年级 年代 个小时 个星期 个课时 个学期 个月 工作日 自然日 日历日 课时 学期 学年 "
            "小时 分钟 星期 公里 千米 厘米 毫米 公斤 千克 平方米 年 月 日 号 天 周 秒 节 级 "
            "个 位 名 人 次 遍 项 条 款 门 本 册 页 张 份 套 种 类 期 届 批 轮 步 倍 成 折 "
            "元 块 岁 层 楼 间 家 座 辆 台 部 首 篇 章 段 句 字 米 斤 克 吨 升 度 点"
        ),
        key=len,
        reverse=True,
    )
)
"""Units and classifiers that turn a Chinese numeral into a quantity, longest first."""

_ARTICLE_CLASSIFIERS = frozenset("个位名次项条种份本张点步类款门句段篇套遍批轮层间家座台部首")
"""After a lone ``一`` these make the article "a" (一个问题, 一次性), not a count."""

_POINTING = frozenset("上下这那哪每同另任某")
"""Before a lone ``一`` these make a pointer, not a count: 下一年 is "next year", 同一级别 "the
same level", 每一次 "every time"."""

_ARABIC = re.compile(
    r"(?<![\d.])(?P<cur>[¥￥$€£]\s?)?(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?P<dec>\.\d+)?"
    rf"(?P<mul>\s?[万亿])?(?P<scale>{SCALE_PATTERN})?(?P<pct>\s?%)?"
)

_RANK_WORD = re.compile(
    r"(?:\b(?:level|grade|step|article|section|chapter|clause|item|rule|tier|stage|phase|no\.?)|#)"
    r"\s*$",
    re.IGNORECASE,
)
_CODE_LETTER = re.compile(r"[A-Za-z]")
"""A letter right before digits makes them part of a code (BiVO4, H1N1), not an amount."""
_REFERENCE = re.compile(
    rf"(?:\b(?:{SOURCE_NOUNS}|ID)\s*#?|上下文|参考资料|参考文献|来源)\s*$",
    re.IGNORECASE,
)
"""Numbers after these point at a source ("contexts 1 and 2", "Passage ID 3"), as ``[1]``
does: a model citing in words, not stating an amount."""
_REFERENCE_JOIN = re.compile(
    r"\s*(?:,\s*(?:and|or)?|、|and|or|&|to|-|–|和|与|或)\s*", re.IGNORECASE
)
_LISTED_ON = re.compile(r"\s*(?:[,、&]|and\b|or\b|和|与|或)", re.IGNORECASE)
_RANK_SUFFIX = re.compile(r"\d+(?:st|nd|rd|th)\b")


def normalise_digits(text: str) -> str:
    """Full-width digits and percent signs to ASCII; the length (and so offsets) is kept."""
    return text.translate(_FULL_WIDTH)


def chinese_value(numeral: str) -> float | None:
    """``十二`` -> 12, ``两千五`` -> 2500, ``二〇二四`` -> 2024, ``三点五`` -> 3.5, else None."""
    whole, _, decimals = numeral.partition("点")
    if not whole or (whole[0] not in ZH_DIGITS and whole[0] != "十"):
        return None
    fraction = 0.0
    if decimals:
        fraction = float("0." + "".join(str(ZH_DIGITS[char]) for char in decimals))
    if all(char in ZH_DIGITS for char in whole):
        if len(whole) > 1 and any(char in "两" for char in whole):
            return None
        return float("".join(str(ZH_DIGITS[char]) for char in whole)) + fraction
    total = section = digit = 0
    last_unit = 1
    for char in whole:
        if char in ZH_DIGITS:
            digit = ZH_DIGITS[char]
        elif char in _ZH_SMALL_UNITS:
            last_unit = _ZH_SMALL_UNITS[char]
            section += (digit or 1) * last_unit
            digit = 0
        else:
            last_unit = _ZH_BIG_UNITS[char]
            total = (total + section + digit) * last_unit
            section = digit = 0
    if digit and last_unit >= 100 and whole[-2] in _ZH_SMALL_UNITS | _ZH_BIG_UNITS:
        digit *= last_unit // 10  # 两千五 is 2500: the trailing digit is one order lower
    return total + section + digit + fraction


_UNIT = re.compile("|".join(map(re.escape, UNITS)))
"""UNITS as one pattern (alternatives tried longest first, as listed): one regex match per
number instead of a startswith per unit — long web pages hold thousands of numbers."""


def _unit_after(text: str, end: int) -> str | None:
    found = _UNIT.match(text[end : end + 6].lstrip())
    return found.group() if found else None


def _arabic(text: str, *, strict: bool) -> list[Quantity]:
    found: list[Quantity] = []
    for match in _ARABIC.finditer(text):
        value = float(match["int"].replace(",", "") + (match["dec"] or ""))
        values = {value}
        if match["mul"]:
            values.add(value * _ZH_BIG_UNITS[match["mul"].strip()])
        if match["scale"]:
            values = scaled(value, match["scale"], strict=strict)
        if match["pct"] or text[max(0, match.start() - 3) : match.start()] == "百分之":
            values.add(value / 100)
        unit = _unit_after(text, match.end()) or ""
        shown = match.group().strip() + (" " + unit if unit else "")
        ordinal = _is_ordinal(text, match.start())
        found.append(
            Quantity(shown, frozenset(map(key, values)), match.start(), match.end(), ordinal)
        )
    return found


def _chinese(text: str, *, strict: bool) -> list[Quantity]:
    found: list[Quantity] = []
    taken: set[int] = set()
    for match in _ZH_FRACTION.finditer(text):
        denominator, numerator = (_value(part) for part in match.groups())
        if denominator and numerator is not None:
            values = {numerator / denominator}
            if denominator == 100:
                values.add(numerator)
            if not strict:
                values.add(denominator)
            found.append(Quantity(match.group(), frozenset(map(key, values)), *match.span()))
            taken.update(range(*match.span()))
    for match in _ZH_RUN.finditer(text):
        quantity = None if match.start() in taken else _chinese_run(text, match, strict=strict)
        found += [quantity] if quantity is not None else []
    return found


def _chinese_run(text: str, match: re.Match[str], *, strict: bool) -> Quantity | None:
    run, value = match.group(), chinese_value(match.group())
    unit, ordinal = _unit_after(text, match.end()), _is_ordinal(text, match.start())
    pointing = strict and text[match.start() - 1 : match.start()] in _POINTING
    article = run == "一" and (
        unit is None or pointing or (strict and unit in _ARTICLE_CLASSIFIERS)
    )
    if value is None or article or (strict and (unit is None or (ordinal and value < 2))):
        return None
    return Quantity(run + (unit or ""), frozenset({key(value)}), *match.span(), ordinal)


def _is_ordinal(text: str, start: int) -> bool:
    """``第三``, ``第 3``, ``Level 3``, ``No. 2``, ``3rd``: a rank, not an amount."""
    before = text[max(0, start - 12) : start]
    if before.rstrip().endswith(("第", "其")) or _RANK_WORD.search(before):
        return True
    return _RANK_SUFFIX.match(text, start) is not None


def _value(part: str) -> float | None:
    if part[0].isdigit():
        return float(part)
    return chinese_value("一" + part if part[0] in "十百千万" else part)


def quantities(text: str) -> list[Quantity]:
    """The quantities an answer states, in reading order (strict reading; see the module)."""
    text = normalise_digits(text)
    arabic = [
        q
        for q in _unreferenced(_arabic(text, strict=True), text)
        if not _CODE_LETTER.match(text[max(0, q.start - 1) : q.start])
    ]
    found = arabic + _chinese(text, strict=True) + _besides(english(text, strict=True), arabic)
    return sorted(_clock(found, text), key=lambda quantity: quantity.start)


def _unreferenced(found: list[Quantity], text: str) -> list[Quantity]:
    """``found`` without the numbers that refer to sources (:data:`_REFERENCE`), a list of
    them included ("sources 1, 2 and 3")."""
    kept: list[Quantity] = []
    read_to, referring = 0, False
    for q in found:
        index = q.text.isdigit() and int(q.text) < 100  # sources are few; "source 2, 40 people"
        gap = _REFERENCE_JOIN.fullmatch(text, read_to, q.start)
        comma = gap is not None and gap.group().strip() in (",", "、")
        listed = not comma or _LISTED_ON.match(text, q.end) is not None  # "2, 40 people"
        joined = referring and gap is not None and listed
        after = _REFERENCE.search(text, max(0, q.start - 24), q.start) is not None
        referring = index and (joined or after)
        if not referring:
            kept.append(q)
        read_to = q.end
    return kept


def source_quantities(text: str) -> list[Quantity]:
    """Every numeral ``text`` writes, with or without a unit (generous reading; ``text`` with
    :func:`normalise_digits` applied): what a source may ground an answer with."""
    arabic = _arabic(text, strict=False)
    worded = _besides(english(text, strict=False), arabic)
    return _clock(arabic + _chinese(text, strict=False) + worded, text)


def _besides(worded: list[Quantity], digits: list[Quantity]) -> list[Quantity]:
    """Number words that aren't the scale of digits already read ("5 thousand")."""
    taken = {at for q in digits for at in range(q.start, q.end)}
    return [q for q in worded if q.start not in taken]


def _clock(found: list[Quantity], text: str) -> list[Quantity]:
    """An afternoon hour is also its 24-hour value (:mod:`rag.check.clock`)."""
    return [replace(q, values=afternoon(q.values, q.text, text, q.start, q.end)) for q in found]
