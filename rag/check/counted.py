"""Numbers that count a list the sentence itself gives: "four main minerals: quartz,
feldspar, mica and amphiboles", "Anatase and rutile are the two phases", "分为三类：A、B 和 C",
"A、B、C 三种方式".

A source that lists the items rarely writes how many there are, so the count is the answer's
own arithmetic, and the sentence shows it: the checker counts the items and grounds the number
when they agree. Only a number right next to its list counts (after it, across a colon; or
before it, in the same clause), so a coincidence with some other list of the sentence grounds
nothing; a miscount stays ungrounded. A source that counts the same things itself ("共设四个
级别") decides instead: a list of three of them is short, not a count. What this lets pass is
a list that leaves out items of a source that never counts them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag.check.durations import unit_of
from rag.check.english_numbers import EN_NUMBER_WORDS
from rag.check.numbers import ZH_NUMERALS
from rag.check.quantity import Quantity, key
from rag.language import IDEOGRAPHS

MAX_ITEMS = 12
"""Longer lists aren't written inline; a bigger number counts something else."""
_LEAD_IN = 48
"""Characters allowed between a number and the colon that opens its list ("four main minerals:")."""

_BRACKETED = re.compile(r"\([^()]*\)|（[^（）]*）")
_COLON = re.compile(r"[:：](?!\d)")
"""The colon that opens a list; not the one of a clock time ("3:00")."""
_SEPARATOR = re.compile(r"\s*[,，、;；]\s*")
_FINAL_JOINT = re.compile(r"^(?:and|or)\s+", re.IGNORECASE)
_RANGE = re.compile(r"\bbetween\b.*\Z|介于.*\Z|\A.*之间", re.IGNORECASE | re.DOTALL)
"""A joint inside a range ("between 22:00 and 07:00", "介于 A 和 B", "A 和 B 之间") ends no item."""
_JOINT = re.compile(r"\s+(?:and|or)\s+|以及|和|及|与|或", re.IGNORECASE)
"""Lists run on commas (or 、) with a joint before the last item: "A, B, and C", "A, B or C",
"A、B 和 C", or just "A and B". Only the last item is cut at a joint when no comma comes
before it, so "between 22:00 and 07:00, when …, or when …" is three items, not four."""
_CLAUSE_BREAK = re.compile(r"[:：;；，。!?！？]")
"""Where the clause holding a list starts (a Chinese list runs on 、, an English one on commas)."""
_RESTATED_BY = re.compile(
    r"\s+(?:are|were|make up|form)\s+(?:the|its|their|all)(?:\s+[a-z]+)?$"
    rf"|(?<=[{IDEOGRAPHS}])(?:这|共|等|总共|一共)?$",
    re.IGNORECASE,
)
"""What stands between a list and the number after it: "A and B are the (main) two"; in
Chinese nothing or a word like 这 / 共 ("A、B 和 C 三种", "A 和 B 这两类")."""
MAX_ITEM_WORDS = 4
"""A list restated by a count names things ("quartz, feldspar and mica are the three"); a
longer stretch before "are the" is a clause, not an item."""
MAX_ITEM_CHARS = 12
"""The same for a Chinese item, in characters."""
_EN_THING = re.compile(r"\s+((?:[A-Za-z][\w-]*\s+)?[A-Za-z][\w-]*)")
"""The thing an English count counts: the word or two after it ("main minerals")."""
_ZH_THING = re.compile(rf"\s*([{IDEOGRAPHS}]{{1,3}})")
"""What a Chinese count counts: its classifier and noun ("个级别" of "三个级别")."""
_MONEY_OR_SHARE = re.compile(r"[%$¥￥€£元]|\s*per\s?cent|\s*percent", re.IGNORECASE)
_END = re.compile(r"[\s.。!?！？…]+$")


def counts_own_list(
    quantity: Quantity,
    plain: str,
    sources: Callable[[], Sequence[str]] | None = None,
    listed_below: int = 0,
) -> bool:
    """Whether ``quantity`` (found in ``plain``) is the number of items of a list right next
    to it in the same sentence, and none of the cited ``sources`` (read only when a list
    matches) counts the same things itself: "口语课分三个级别：入门级、进阶级、流利级" lists
    three levels, but the source's "共设四个级别" says the list is short (that source's own
    count decides). ``listed_below``: the items under
    ``plain`` when it is a lead-in ("There are three ways to apply:" over three lines)."""
    counts = {key(float(n)) for n in range(2, MAX_ITEMS + 1)}
    if not quantity.values & counts or quantity.ordinal or _measures(quantity, plain):
        return False
    before = _BRACKETED.sub(" ", plain[: quantity.start])
    after = _BRACKETED.sub(" ", plain[quantity.end :])
    found = (_items_after(after, listed_below), _items_before(before))
    listed = {key(float(n)) for n in found if n}
    if not quantity.values & listed:
        return False
    return sources is None or not _counted_in(sources(), quantity, plain)


def _counted_in(sources: Sequence[str], quantity: Quantity, plain: str) -> bool:
    """Whether a source writes a number before the same thing the sentence counts ("个级别",
    "main minerals")."""
    if quantity.text.isascii():
        thing = _EN_THING.match(plain, quantity.end)
        if thing is None:
            return False
        pattern = rf"(?i:\b(?:\d+|{EN_NUMBER_WORDS})\s+{re.escape(thing.group(1))}\b)"
    else:
        thing = _ZH_THING.match(plain, quantity.end)
        if thing is None:
            return False
        pattern = rf"[\d{ZH_NUMERALS}]\s*{re.escape(thing.group(1))}"
    return any(re.search(pattern, source) for source in sources)


def _measures(quantity: Quantity, plain: str) -> bool:
    """An amount of time, money or a share ("2 weeks: apply and wait") counts no list."""
    shown = quantity.text + plain[quantity.end : quantity.end + 9]
    return unit_of(quantity, plain) is not None or bool(_MONEY_OR_SHARE.search(shown))


def _items_after(after: str, listed_below: int) -> int:
    """How many items follow the colon that ends the number's lead-in, if one does: in the
    sentence, or when the colon ends it, the ``listed_below`` lines under it."""
    colon = _COLON.search(after, 0, _LEAD_IN + 1)
    if colon is None or re.search(r"[.。;；!?！？]", after[: colon.start()]):
        return 0
    rest = _END.sub("", after[colon.end() :])
    return _count(rest) if rest.strip() else listed_below


def _items_before(before: str) -> int:
    """How many items the clause right before the number lists, when only "are the", "这",
    "等" and the like stand between them."""
    joint = _RESTATED_BY.search(before.rstrip())
    if joint is None:
        return 0
    clause = _CLAUSE_BREAK.split(before[: joint.start()])[-1]
    if any(_long(item) for item in _items(clause)):
        return 0
    return _count(clause)


def _long(item: str) -> bool:
    return len(item.split()) > MAX_ITEM_WORDS if item.isascii() else len(item) > MAX_ITEM_CHARS


def _items(listing: str) -> list[str]:
    parts = [part for part in _SEPARATOR.split(listing.strip()) if part.strip()]
    if not parts:
        return []
    if len(parts) > 1 and _FINAL_JOINT.match(parts[-1]):
        return [*parts[:-1], _FINAL_JOINT.sub("", parts[-1])]
    *head, last = parts
    joints = list(_JOINT.finditer(last))
    if not joints:
        return parts
    cut = joints[-1]
    if _RANGE.search(last[: cut.start()]) or _RANGE.search(last[cut.end() :]):
        return parts  # "between 22:00 and 07:00" is one item: a range
    return [*head, last[: cut.start()], last[cut.end() :]]


def _count(listing: str) -> int:
    items = [item for item in _items(listing) if item.strip()]
    return len(items) if len(items) >= 2 else 0
