"""The offline answer to a list, count or comparison question: one quote for each part.

:func:`rag.generate.extractive.choose_sentences` quotes the one to three sentences that best
answer a question, mostly from its best source — which for "出差和加班各需要谁审批？" names the
approver of one of the two, and for "what kinds of leave are there?" one kind. Here
(:mod:`rag.parts` reads the question's shape):

- a comparison quotes, for each compared thing, its sentence: one under a heading naming it
  and what is asked first, then one with its full name, then one about it alone; a sentence
  naming it only in its heading is led by its name; a thing no source names is said to be
  missing, and when no source names any, the answer is the refusal;
- a list or count quotes a sentence for each item the sources hold (:mod:`rag.generate.listed`).
  Unless a quoted sentence states how many there are, the answer says the documents don't: no
  "there are N kinds" the sources never wrote.

A list one sentence of the best page already holds ("著作有《…》、《…》、《…》等") and a
comparison one sentence answers ("男子的平均年收入为…，女子的…") keep the usual answer.

Every quote is verbatim and cites its own source, so each part carries its citation and the
checker passes it as it passes any quote.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.generate.listed import listed
from rag.generate.part_terms import content, names, own_terms
from rag.generate.prompt import PromptSource
from rag.generate.quotable import Candidate, quotable
from rag.generate.scoring import SentenceScorer, ranked
from rag.language import Language, is_ideograph
from rag.parts import Parts
from rag.reading import match_terms
from rag.similarity import SentenceSimilarity

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
    found = listed(parts, scored, wanted, sources)
    if found is None:
        return None
    quotes, counted = found
    return Composed(parts.shape, tuple(Quote(c) for c in quotes), incomplete=not counted)


_ENUMERATION = re.compile(r"[^、]+、[^、]+、")
"""Three or more things in one Chinese sentence ("《精神科学导言》、《哲学的本质》、…"). English
commas also separate clauses and relatives ("a partner, child, parent or sibling"): not read."""


def _asked(question: str, parts: Parts, wanted: set[str]) -> set[str]:
    """What is asked of the compared things: the question's terms but theirs and those of what
    qualifies them (出差 of 出差的交通和住宿各有什么标准 leaves 标准)."""
    if not parts.things:
        return wanted
    at = question.find(parts.things[0])
    qualifier = content(question[:at]) if at > 0 else set()
    return wanted - qualifier - set().union(*(content(t) for t in parts.things))


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
    own = own_terms(thing, things)
    return bool(own) and own <= candidate.topic
