"""The quotes of a list or count answer: a sentence for each item the sources hold.

The retrieval gathered one passage per section (:mod:`rag.search.gather`). A source answers
when its best sentence scores :data:`LIST_SHARE` of the best or its heading names the topic;
its item is its page, or its section when the section names an item of its own
(:func:`_items`); each item is quoted once, by its best sentence, and a sentence saying how
many there are leads (:mod:`rag.generate.composed` says so when none does).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.chunks import HEADING_SEPARATOR
from rag.generate.part_terms import about, content, topic_terms
from rag.generate.prompt import PromptSource
from rag.generate.quotable import Candidate, document_of, heading_of
from rag.language import is_ideograph
from rag.parts import Parts

LIST_SHARE = 0.5
"""A source's best sentence joins a list answer when it scores at least this share of the best
sentence (the other sources of an encyclopedia question rarely do)."""
MAX_ITEMS = 8
_STATES_COUNT = re.compile(
    r"[\d一二三四五六七八九十两]+\s*(?:个|大)?(?:类|种|项)"
    r"|\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+(?:\w+\s+)?"
    r"(?:kinds|types|sorts|categories|classes)\b",
    re.IGNORECASE,
)
"""A sentence that says how many there are ("分为以下五类", "there are four expense categories")."""


def listed(
    parts: Parts,
    scored: list[tuple[float, Candidate]],
    wanted: set[str],
    sources: Sequence[PromptSource],
) -> tuple[list[Candidate], bool] | None:
    """A sentence for each item among the sources that answer: a source answers when its best
    sentence scores :data:`LIST_SHARE` of the best or its heading shares the question's words
    ("Expense Claims › Meals" for "which expenses can I claim?"). Items are the pages, or the
    sections of a page that each name an item of their own (:func:`_items`). An item's
    sentence is the first one naming what its heading names ("可享受婚假 3 天" under 婚假规定),
    not the one sharing most words with the question ("婚假期间工资照常发放" shares 假期)."""
    best = scored[0][0]
    topic = topic_terms(parts.topic)
    # a sentence saying how many there are leads, whatever it shares with the question
    counted = next(
        (c for v, c in scored if v > 0 and about(c, topic) and _STATES_COUNT.search(c.full_text)),
        None,
    )
    chosen: list[Candidate] = [] if counted is None else [counted]
    headed = _headed(sources, parts.topic, topic)
    answering = {c.source for v, c in scored if (v > 0 and v >= best * LIST_SHARE)} | headed
    item_of = _items(sources, topic, wanted)
    by_item: dict[tuple[str, ...], list[Candidate]] = {}
    for _, candidate in scored:
        if candidate.source in answering and about(candidate, topic):
            by_item.setdefault(item_of[candidate.source], []).append(candidate)
    taken = {item_of[c.source] for c in chosen}
    for item, candidates in sorted(by_item.items(), key=lambda kv: min(c.source for c in kv[1])):
        if len(chosen) == MAX_ITEMS or item in taken:
            continue
        # its best sentence: for an item on a page of its own it names the item (婚假期间…
        # under 婚假规定), and a page holding the whole list quotes it (著作有《…》、《…》)
        fresh = [c for c in candidates if not any(_same(c, o) for o in chosen)]
        if fresh:
            chosen.append(fresh[0])
    if len(chosen) < 2:
        return None
    return chosen, counted is not None


def _headed(sources: Sequence[PromptSource], text: str, topic: set[str]) -> set[int]:
    """The sources whose heading names the topic: all its English words ("Expense Claims ›
    Meals" for expenses to claim), or half its ideographs (年休假管理办法 for 假期: the items
    of a kind share its head, 年假 and 病假 do not share the word 假期)."""
    named = content(text)
    chars = {t for t in topic if len(t) == 1 and is_ideograph(t)}
    found = set()
    for source in sources:
        heading = heading_of(source.header)
        by_chars = bool(chars) and 2 * len(chars & set(heading)) >= len(chars)
        by_words = not chars and bool(named) and named <= content(heading)
        if by_chars or by_words:
            found.add(source.n)
    return found


def _items(
    sources: Sequence[PromptSource], topic: set[str], wanted: set[str]
) -> dict[int, tuple[str, ...]]:
    """Which item each source is about: its page, or its section when the section's heading
    names an item the page's title does not — "一、餐费补贴" of 员工补贴发放办法 and "Meals" of
    Expense Claims are items, "Booking annual leave" of Annual Leave and "Notice" of Parental
    Leave are about their page's item. A section heading names an item when it speaks of the
    topic (补贴) or the title names nothing beside the question's words (Expense Claims)."""
    items: dict[int, tuple[str, ...]] = {}
    for source in sources:
        document = document_of(source.header)
        heading, _, path = heading_of(source.header).partition(" (")
        title = path.rstrip(")").split(HEADING_SEPARATOR)[0] if path else heading
        title_item = content(title) - wanted
        own = content(heading) - wanted
        about = bool(topic & (set(heading) | content(heading))) or not title_item
        separate = heading != title and own and about and not own & title_item
        items[source.n] = (document, heading) if separate else (document,)
    return items


def _same(one: Candidate, other: Candidate) -> bool:
    """The same sentence, as a near-copy of a passage repeats it."""
    return one.text in other.full_text or other.text in one.full_text
