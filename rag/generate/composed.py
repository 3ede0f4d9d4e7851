"""The offline answer to a list, count or comparison question: one quote for each part.

:func:`rag.generate.extractive.choose_sentences` quotes the one to three sentences that best
answer a question, mostly from its best source — which for "出差和加班各需要谁审批？" names the
approver of one of the two, and for "what kinds of leave are there?" one kind. Here
(:mod:`rag.parts` reads the question's shape):

- a comparison quotes, for each compared thing, the best sentence that names it (one naming no
  other thing first); when no sentence names it, the best sentence of a passage whose heading
  does, led by the thing's name; when nothing does, the answer says the documents don't
  mention it;
- a list or count quotes the best sentence of each source (the retrieval gathered one passage
  per section: :mod:`rag.search.gather`) that speaks of the topic and scores at least
  :data:`LIST_SHARE` of the best, a sentence stating the number first. Unless a quoted sentence
  states how many there are, the answer says the documents don't: no "there are N kinds" the
  sources never wrote.

Every quote is verbatim and cites its own source, so each part carries its citation and the
checker passes it as it passes any quote.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.chunks import HEADING_SEPARATOR
from rag.generate.prompt import PromptSource
from rag.generate.quotable import Candidate, document_of, heading_of, quotable
from rag.generate.scoring import SentenceScorer, ranked
from rag.generate.similarity import SentenceSimilarity
from rag.language import Language, is_ideograph
from rag.parts import Parts
from rag.reading import EN_STOPWORDS, STOP_CHARS, english_stems, match_terms

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

NOT_MENTIONED: dict[Language, str] = {
    "zh": "资料里没有提到「{}」。",
    "en": "The documents don't mention {}.",
}
"""A compared thing no source names; the checker reads it as a statement about the sources."""
NOT_COMPLETE: dict[Language, dict[str, str]] = {
    "zh": {"count": "资料里没有写总数。", "list": "资料里没有说明是否只有这些。"},
    "en": {
        "count": "The documents don't say how many there are.",
        "list": "The documents don't say if that is all.",
    },
}
"""Said under a list or count answer no quoted sentence states the number of: short enough
that the checker reads it as a remark about the sources, not a claim to cite
(:func:`rag.check.coverage.needs_source`)."""


@dataclass(frozen=True, slots=True)
class Quote:
    candidate: Candidate
    label: str = ""
    """The compared thing's name, when the quote names it only in its heading."""


@dataclass(frozen=True, slots=True)
class Composed:
    shape: str
    quotes: tuple[Quote, ...]
    missing: tuple[str, ...] = ()
    """Compared things no source names."""
    incomplete: bool = False
    """A list or count whose sources don't say how many there are."""


def compose(
    question: str,
    parts: Parts,
    sources: Sequence[PromptSource],
    wanted: set[str],
    similarity: SentenceSimilarity | None = None,
) -> Composed | None:
    """One quote per part, or ``None`` when fewer than two parts are found (then the usual
    answer is the better one)."""
    candidates = [c for c in quotable(sources) if not c.text.startswith("#")]
    if not wanted or not candidates:
        return None
    scorer = SentenceScorer.of(question, wanted, candidates)
    scored = ranked(question, candidates, scorer, similarity)
    asked = _asked(question, parts, wanted)
    if scored[0][0] <= 0 or _answered_in_one_place(parts, scored, asked):
        return None
    if parts.shape == "comparison":
        return _compared(parts, scored, asked)
    return _listed(parts, scored, wanted, sources)


_ENUMERATION = re.compile(r"[^、]+、[^、]+、")
"""Three or more things in one Chinese sentence ("《精神科学导言》、《哲学的本质》、…"). English
commas also separate clauses and relatives ("a partner, child, parent or sibling"): not read."""


def _asked(question: str, parts: Parts, wanted: set[str]) -> set[str]:
    """What is asked of the compared things: the question's terms but theirs and those of what
    qualifies them (出差 of 出差的交通和住宿各有什么标准 leaves 标准)."""
    if not parts.things:
        return wanted
    at = question.find(parts.things[0])
    qualifier = _content(question[:at]) if at > 0 else set()
    return wanted - qualifier - set().union(*(_content(t) for t in parts.things))


def _answered_in_one_place(
    parts: Parts, scored: list[tuple[float, Candidate]], asked: set[str]
) -> bool:
    """Whether the best sentence already holds every part, as an encyclopedia page does
    ("著作有《精神科学导言》、《哲学的本质》…"; "男子的平均年收入为…，女子的平均年收入为…"):
    then the usual answer quotes it, and no other page is asked for a part. A sentence that
    names the compared things without what is asked of them ("…出差发生的交通、住宿和补助等费用"
    for 出差的交通和住宿各有什么标准) is no answer: what qualifies the things (出差的) is not
    what is asked."""
    first = scored[0][1]
    if parts.shape != "comparison":
        return bool(first.items) or _ENUMERATION.search(first.text) is not None
    return all(names(first.full_text, t, parts.things) for t in parts.things) and bool(
        asked & first.terms
    )


def _compared(
    parts: Parts, scored: list[tuple[float, Candidate]], asked: set[str]
) -> Composed | None:
    """For each thing, the sentence naming it (or under a heading naming it) — first one under
    a heading that also names what is asked (二、交通标准 for 交通 in 出差的交通和住宿各有什么标准,
    not 二、交通补贴), then one with its full name ("Pro plan", not the "pro" of "pro rata"),
    then one about it alone; a sentence naming it only in its heading is led by its name."""
    quotes: list[Quote] = []
    missing: list[str] = []
    for thing in parts.things:
        naming = [c for _, c in scored if names(c.full_text, thing, parts.things)]
        headed = [c for _, c in scored if _heads(c, thing, parts.things)]
        found = list(dict.fromkeys(naming + headed))
        found.sort(
            key=lambda c: (
                not (c in headed and asked & c.topic),
                c not in naming,
                not _full_name(c, thing),
                not _alone(c, thing, parts.things),
            )
        )
        if not found:
            missing.append(thing)
            continue
        best = found[0]
        quotes.append(Quote(best, label="" if best in naming else thing))
        # "Overtime beyond 20 hours … needs HR approval." and "Overtime must be agreed with
        # your line manager.": a second sentence about it alone, from the same passage
        more = [c for c in naming if c is not best and c.source == best.source]
        more = [c for c in more if _alone(c, thing, parts.things)]
        if more and best in naming and _alone(best, thing, parts.things):
            quotes.append(Quote(more[0]))
    kept = list(dict.fromkeys(quotes))
    if len(kept) < 2 and not (kept and missing) and len(missing) < len(parts.things):
        return None  # one sentence for every thing: the usual answer quotes it
    return Composed(parts.shape, tuple(kept), tuple(missing))


def _full_name(candidate: Candidate, thing: str) -> bool:
    return thing.casefold() in candidate.full_text.casefold()


def _alone(candidate: Candidate, thing: str, things: Sequence[str]) -> bool:
    """Whether ``candidate`` names ``thing`` and none of the other ``things``."""
    others = [t for t in things if t != thing]
    text = candidate.full_text
    return names(text, thing, things) and not any(names(text, o, things) for o in others)


def _heads(candidate: Candidate, thing: str, things: Sequence[str]) -> bool:
    """Whether the candidate's heading names ``thing`` (its terms hold the thing's own)."""
    if any(is_ideograph(ch) for ch in thing):
        return match_terms(thing) <= candidate.topic
    own = _own_terms(thing, things)
    return bool(own) and own <= candidate.topic


def _listed(
    parts: Parts,
    scored: list[tuple[float, Candidate]],
    wanted: set[str],
    sources: Sequence[PromptSource],
) -> Composed | None:
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
        (c for v, c in scored if v > 0 and _about(c, topic) and _STATES_COUNT.search(c.full_text)),
        None,
    )
    chosen: list[Candidate] = [] if counted is None else [counted]
    headed = _headed(sources, parts.topic, topic)
    answering = {c.source for v, c in scored if (v > 0 and v >= best * LIST_SHARE)} | headed
    item_of = _items(sources, topic, wanted)
    by_item: dict[tuple[str, ...], list[Candidate]] = {}
    for _, candidate in scored:
        if candidate.source in answering and _about(candidate, topic):
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
    return Composed(parts.shape, tuple(Quote(c) for c in chosen), incomplete=counted is None)


def _headed(sources: Sequence[PromptSource], text: str, topic: set[str]) -> set[int]:
    """The sources whose heading names the topic: all its English words ("Expense Claims ›
    Meals" for expenses to claim), or half its ideographs (年休假管理办法 for 假期: the items
    of a kind share its head, 年假 and 病假 do not share the word 假期)."""
    named = _content(text)
    chars = {t for t in topic if len(t) == 1 and is_ideograph(t)}
    found = set()
    for source in sources:
        heading = heading_of(source.header)
        by_chars = bool(chars) and 2 * len(chars & set(heading)) >= len(chars)
        by_words = not chars and bool(named) and named <= _content(heading)
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
        title_item = _content(title) - wanted
        own = _content(heading) - wanted
        about = bool(topic & (set(heading) | _content(heading))) or not title_item
        separate = heading != title and own and about and not own & title_item
        items[source.n] = (document, heading) if separate else (document,)
    return items


def _content(text: str) -> set[str]:
    return match_terms(text) if any(is_ideograph(ch) for ch in text) else _terms(text)


def _same(one: Candidate, other: Candidate) -> bool:
    """The same sentence, as a near-copy of a passage repeats it."""
    return one.text in other.full_text or other.text in one.full_text


def topic_terms(topic: str) -> set[str]:
    """What a sentence must hold to be about the topic: its English stems, or its content
    ideographs ("假期" -> 假, 期: 年假, 病假 and 婚假 all hold 假)."""
    if any(is_ideograph(ch) for ch in topic):
        return {ch for ch in topic if is_ideograph(ch) and ch not in STOP_CHARS}
    return _terms(topic)


def _terms(text: str) -> set[str]:
    words = re.findall(r"[a-z][a-z'-]+", text.lower())
    return set(english_stems(w for w in words if w not in EN_STOPWORDS))


def _about(candidate: Candidate, topic: set[str]) -> bool:
    if not topic:
        return True
    text = candidate.full_text.lower()
    if all(len(t) == 1 and is_ideograph(t) for t in topic):
        return any(t in text for t in topic)
    return bool(topic & (_terms(text) | candidate.topic))


def names(text: str, thing: str, things: Sequence[str]) -> bool:
    """Whether ``text`` names ``thing``: all of it, or (English) every word stem of it that
    tells it from the other ``things`` ("Pro" of "Pro plan" beside "Team plan")."""
    if thing.casefold() in text.casefold():
        return True
    if any(is_ideograph(ch) for ch in thing):
        return False
    own = _own_terms(thing, things)
    return bool(own) and own <= _terms(text)


def _own_terms(thing: str, things: Sequence[str]) -> set[str]:
    """The word stems of ``thing`` that none of ``things`` shares with it ("pro" of "Pro
    plan" beside "Team plan")."""
    shared = _terms(thing)
    for other in things:
        shared &= _terms(other)
    return _terms(thing) - shared
