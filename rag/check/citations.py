"""The citation checker: an answer reaches the asker only if its citations hold up.

A model handed the right passages can still write "口语课一共六级[3]" or "按剩余课时的 80% 退[7]".
:func:`check` reads a draft against the hits it was written from and names every problem:

``unknown_reference``
    a ``[n]`` outside 1..len(hits). Markers are read in the forms models write (``[1]``,
    ``[1][2]``, ``[1, 2]``, ``[1-3]``, ``［1］``, ``【1】``, ``【1，2】``; see :mod:`rag.markers`).
``no_citation``
    an answer that cites nothing (refusals are exempt), or a sentence stating a fact (a
    quantity, or at least three content terms) that no citation covers while others cite.
``ungrounded_number``
    a quantity that appears neither in the sources its sentence cites, nor in the question,
    nor as a result of correct arithmetic written in the answer (see :mod:`rag.check.numbers`).
``wrong_arithmetic``
    a written-out calculation whose sides disagree (see :mod:`rag.check.arithmetic`), or a
    right sum whose parts the sentence states otherwise, or a stated difference ("比 4800 元贵
    280 元") that is not one (:mod:`rag.check.totals`).
``unrelated_source``
    a cited source that shares no content term with the sentence citing it, or barely any
    while an uncited retrieved source holds the sentence (see :func:`_unrelated`).
``unsupported_claim``, ``ungrounded_name``, ``modality_mismatch``
    a cited sentence whose content words its sources mostly lack, that names a person, place,
    product or code neither its sources nor the question name, or that flips a must / may
    (see :mod:`rag.check.claims`).

Which citations cover a sentence: its own markers; else those of the next sentence of its
paragraph that has markers ("A。B[1]。" — the [1] covers both). A sentence after the last
marker of its paragraph is uncovered; its numbers are checked against the sources its
paragraph cites, else those the whole answer cites. A cited lead-in covers the list or table
under it, and a closing "来源：[1][2]" line covers the whole answer. Lead-ins ending in a colon
("资料原文如下：", "计算如下："), headings, and courtesy or "the documents don't say" sentences
need no citation of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.check.answer_text import Sentence, sentences
from rag.check.arithmetic import Calculation, calculations
from rag.check.cited import CitedSources
from rag.check.claims import Finding, judge
from rag.check.counterparts import name_instead, number_instead
from rag.check.coverage import (
    MIN_TERMS_TO_JUDGE,
    applicable,
    covering_sentences,
    introduced,
    names,
    needs_source,
)
from rag.check.durations import durations
from rag.check.meta_phrases import without_meta
from rag.check.number_grounds import Given
from rag.check.numbers import Quantity, quantities
from rag.check.problem_texts import ProblemTexts
from rag.check.restated import swapped
from rag.check.source_numbers import number_values
from rag.check.table_rows import misplaced
from rag.check.totals import misstated_difference, unsummed
from rag.check.yes_no import asks_yes_or_no
from rag.language import Language, detect_language
from rag.markers import cited_numbers, values_in_parentheses
from rag.messages import is_refusal_text
from rag.problems import KINDS, Problem
from rag.reading import claim_terms
from rag.results import Hit

__all__ = ["KINDS", "Problem", "Report", "check", "sentences"]

WEAK_OVERLAP = 0.2
STRONG_OVERLAP = 0.5
"""A cited source holding under WEAK_OVERLAP of a sentence's terms while another retrieved
source holds STRONG_OVERLAP or more: the citation points at the wrong source."""
TELLING_NUMBER = 10
"""A shared number at least this large links a sentence to its source (4800, 2024, 45)."""

_MORE_SPECIFIC = frozenset({"ungrounded_number", "unrelated_source"})
"""A sentence already blamed for these needs no vaguer "most of it is not in [n]" as well."""


@dataclass(frozen=True, slots=True)
class Report:
    problems: tuple[Problem, ...] = ()
    weakest_support: float = 1.0
    """The lowest share of a judged sentence's content words found in what it cites (for
    the threshold table of ``python -m rag check-eval``)."""

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def messages(self) -> tuple[str, ...]:
        return tuple(problem.message for problem in self.problems)


def check(
    text: str, hits: Sequence[Hit], *, question: str = "", language: Language | None = None
) -> Report:
    """Every problem with ``text``'s citations against ``hits`` (``[n]`` = ``hits[n - 1]``).

    ``question``, when given, grounds the numbers the asker supplied ("还剩 12 课时").
    ``language``: the asker's, which problems are written in (default: the answer's)."""
    if is_refusal_text(text):
        return Report()
    text = values_in_parentheses(text, [hit.chunk.text for hit in hits])  # [200, 599] is no [n]
    yes_no = asks_yes_or_no(question)  # the question then grounds no names (rag.check.yes_no)
    say = ProblemTexts(language or detect_language(text), len(hits), question_names=not yes_no)
    problems: list[Problem] = []
    found = sentences(text)
    valid = range(1, len(hits) + 1)
    cited_anywhere = [n for n in cited_numbers(text) if n in valid]
    if not found or not cited_numbers(text):
        problems.append(Problem("no_citation", say.no_citation_at_all()))
    for sentence in found:
        for n in sentence.cites:
            if n not in valid:
                problems.append(Problem("unknown_reference", say.unknown(n), sentence.text, (n,)))

    covering = covering_sentences(found)
    calcs = [calculations(sentence.plain) for sentence in found]
    produced = frozenset().union(*(c.produced for cs in calcs for c in cs if c.ok))
    sources = CitedSources(hits, question)
    weakest = 1.0
    asked = Given(number_values(question, ordinals=True), durations(question), produced)
    for index, sentence in enumerate(found):
        amounts = quantities(sentence.plain)
        cover = covering[index]
        if cover is None and cited_anywhere and needs_source(sentence, bool(amounts)):
            message, note = say.uncited(sentence.text), say.uncited_note()
            problems.append(Problem("no_citation", message, sentence.text, note=note))
        refs = applicable(found, index, cover, cited_anywhere, len(hits))
        if refs is not None and sources.quote(sentence.plain, refs).verbatim:
            continue  # a sentence of its source, word for word: it states what it cites
        problems += _arithmetic_problems(sentence, amounts, calcs[index], say)
        if refs is None:
            continue  # cites only numbers that don't exist: unknown_reference says it
        below = _items_below(found, index)
        missing = sources.ungrounded(amounts, sentence.plain, calcs[index], refs, asked, below)
        kept = [q for q in amounts if q not in missing]
        problems += misplaced(sentence, kept, sources.texts(refs), say)
        problems += _difference_problem(sentence, amounts, kept, calcs[index], say)
        problems += swapped(sentence, kept, refs, sources, asked.numbers | produced, say)
        if missing:
            shown = tuple(refs) if cited_anywhere else ()
            problems.append(_number_problem(sentence, missing, sources.texts(shown), say))
        if sentence.cites:
            problems.extend(_unrelated(found, index, covering, sources, say))
        if cover is not None and (needs_source(sentence, bool(amounts)) or names(sentence)):
            by_names = bool(calcs[index]) or sentence.lead_in
            finding = judge(sentence.plain, refs, sources, names_only=by_names, code=sentence.code)
            weakest = min(weakest, finding.support)
            named = {p.kind for p in problems if p.sentence == sentence.text} & _MORE_SPECIFIC
            cited = sources.texts(refs)
            problems += _claim_problems(finding, sentence, cited, say, skip_support=bool(named))
    return Report(tuple(dict.fromkeys(problems)), weakest)


def _items_below(found: Sequence[Sentence], index: int) -> int:
    """How many list items or table rows a lead-in ("There are three ways to apply:") has
    under it: what a count in it may count (:mod:`rag.check.counted`)."""
    if not found[index].lead_in:
        return 0
    return sum(not found[row].header for row in introduced(found, index))


def _arithmetic_problems(
    sentence: Sentence,
    amounts: Sequence[Quantity],
    calcs: Sequence[Calculation],
    say: ProblemTexts,
) -> list[Problem]:
    """Wrong calculations, and right sums of parts the sentence (its ``amounts``) states
    otherwise."""
    problems = []
    for calc in calcs:
        if not calc.ok:
            problems.append(Problem("wrong_arithmetic", say.arithmetic(calc), sentence.text))
        elif found := unsummed(sentence.plain, amounts, calc, calcs):
            problems.append(Problem("wrong_arithmetic", say.unsummed(found, calc), sentence.text))
    return problems


def _difference_problem(
    sentence: Sentence,
    amounts: Sequence[Quantity],
    kept: Sequence[Quantity],
    calcs: Sequence[Calculation],
    say: ProblemTexts,
) -> list[Problem]:
    """A difference stated without a formula that is not the difference of the amounts it
    compares; only a grounded one (in ``kept``: an ungrounded one is the number rule's to
    name)."""
    found = None if calcs else misstated_difference(sentence.plain, amounts)
    if found is None or all(q.start != found.difference.start for q in kept):
        return []
    return [Problem("wrong_arithmetic", say.difference(found), sentence.text)]


def _number_problem(
    sentence: Sentence,
    missing: Sequence[Quantity],
    cited: Sequence[tuple[int, str]],
    say: ProblemTexts,
) -> Problem:
    """Numbers its sources lack, with what they have in their place (for the card's note)."""
    refs = tuple(n for n, _ in cited)
    language = detect_language(sentence.plain)
    instead = [(q, number_instead(q, sentence.plain, cited, language)) for q in missing]
    message, note = say.ungrounded(missing, refs), say.ungrounded_note(instead, refs)
    return Problem("ungrounded_number", message, sentence.text, refs, note)


def _claim_problems(
    finding: Finding,
    sentence: Sentence,
    cited: Sequence[tuple[int, str]],
    say: ProblemTexts,
    *,
    skip_support: bool,
) -> list[Problem]:
    refs = tuple(n for n, _ in cited)
    text = sentence.text
    problems: list[Problem] = []
    if finding.unsupported and not skip_support:
        message, note = say.unsupported(refs, text), say.unsupported_note(refs)
        problems.append(Problem("unsupported_claim", message, text, refs, note))
    if finding.missing_names:
        language = detect_language(sentence.plain)
        names = [
            (name, name_instead(name, sentence.plain, cited, language))
            for name in finding.missing_names
        ]
        message = say.ungrounded_names(finding.missing_names, refs, text)
        problems.append(
            Problem("ungrounded_name", message, text, refs, say.names_note(names, refs))
        )
    for modal in finding.flipped:
        message, note = say.flipped(modal, refs, text), say.flipped_note(modal, refs)
        problems.append(Problem("modality_mismatch", message, text, refs, note))
    return problems


def _unrelated(
    found: Sequence[Sentence],
    index: int,
    covering: Sequence[int | None],
    sources: CitedSources,
    say: ProblemTexts,
) -> list[Problem]:
    """Cited sources that don't hold the sentences their markers cover.

    A source is unrelated when it shares neither a content term nor telling numbers with the
    sentences (one shared number from 10 up, or two of any size, link them), or when it shares
    only a sliver of their terms (< WEAK_OVERLAP) and none of those numbers while a retrieved
    source the sentence does not cite holds most of the terms (>= STRONG_OVERLAP): the
    citation then points at the wrong source. (A sentence citing [1][2] may draw most of its
    content from [1] and one detail from [2].) Sentences of fewer
    than two content terms ("应退 3420 元[1]") are left to the number rule.
    """
    covered = [j for j in range(len(found)) if covering[j] == index]
    if found[index].lead_in:  # "Here are the rules [1]:" points at the list below it
        covered += introduced(found, index)
    group = " ".join(found[j].plain for j in dict.fromkeys(covered))
    wanted = claim_terms(without_meta(group))
    if len(wanted) < MIN_TERMS_TO_JUDGE:
        return []
    numbers = {v for q in quantities(group) for v in q.values}
    language = detect_language(group)
    comparable = [
        n for n in range(1, len(sources.hits) + 1) if sources.language(n) == language
    ]  # another language: a translation can't be compared term by term
    overlap = {n: len(wanted & sources.terms(n)) / len(wanted) for n in comparable}
    uncited = [overlap[n] for n in comparable if n not in found[index].cites]
    best_uncited = max(uncited, default=0.0)
    problems: list[Problem] = []
    for n in found[index].cites:
        if n not in overlap:
            continue
        if any(overlap.get(m, 0.0) >= STRONG_OVERLAP for m in found[index].cites if m != n):
            continue
        shared = numbers & sources.numbers(n)
        linked = len(shared) >= 2 or any(v >= TELLING_NUMBER for v in shared)
        unsupported = overlap[n] == 0 and not linked
        elsewhere = overlap[n] < WEAK_OVERLAP and best_uncited >= STRONG_OVERLAP and not linked
        if unsupported or elsewhere:
            message, note = say.unrelated(n, group), say.unrelated_note(n)
            problems.append(Problem("unrelated_source", message, found[index].text, (n,), note))
    return problems
