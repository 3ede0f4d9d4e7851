"""A number taken from another sentence of the cited passage: "每个级别最多可免费转班三次" where
the passage says "最多可免费转班两次" and, elsewhere, "至少 3 个工作日".

The number rule grounds 3 (the passage has it) and word coverage passes the sentence; what
gives it away is the passage's own sentence that says the same thing with another number of the
same kind. For each number a sentence grounds in its cited sources (not in the question, not as
the result of its own arithmetic): when the window of the passage that restates the sentence
(at least :data:`MIN_RESTATED` of its content words, :mod:`rag.check.support`) does not hold the
number but holds another one counted in the same unit ("两次" for "三次", "3 working days" for
"10 working days"), the number is misattributed.

The same goes for a number of another unit of time ("5 hours" where that sentence says
"5 minutes") or another kind of day ("3 个自然日" where it says "3 个工作日"): the number is
grounded, its unit is not.

A number counts in a unit when one follows it: a Chinese unit or classifier ("次", "个工作日",
"元"; dates excepted: "3 月" is March) or the English word right after it ("days", "CNY"). A
number without one is left to the number rule: "3" alone could be anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rag.check.answer_text import Sentence
from rag.check.cited import CitedSources
from rag.check.durations import unit_of
from rag.check.numbers import Quantity, normalise_digits, quantities, source_quantities
from rag.check.problem_texts import ProblemTexts
from rag.check.support import MIN_CONTENT_WORDS, Window, content_words, coverage, source_sentences
from rag.check.units import Counted, count_of, counted, day_kind
from rag.language import Language, detect_language
from rag.problems import Problem

MIN_RESTATED = 0.7
"""Share of the sentence's content words a window must hold to be the passage's own statement
of it. On attrib-tune (``python -m rag check-eval``) 0.5 adds one AttributionBench false alarm
(an age list whose window states another person's age) for one catch; 0.7 adds none."""


def _counts(quantities: Sequence[Quantity], text: str, language: Language) -> list[Counted]:
    """The counts of ``text`` with their units, and its Chinese ranks apart from them: "第三次"
    counts in "第次", so "第二次起收费" is set against "第三次起", not against "两次"."""
    ranks = (count_of(q, text, language) for q in quantities if q.ordinal and language == "zh")
    ranked = [Counted(c.values, "第" + c.unit, "第" + c.shown) for c in ranks if c is not None]
    return counted(quantities, text, language) + ranked


@lru_cache(maxsize=1024)
def _line(text: str, language: Language) -> tuple[str, tuple[Quantity, ...], tuple[Counted, ...]]:
    """A restating line read once: its text with digits normalised, its numbers (ranks left
    out) and its counts."""
    text = normalise_digits(text)
    found = source_quantities(text)
    return text, tuple(q for q in found if not q.ordinal), tuple(_counts(found, text, language))


def _reunited(
    sentence: Sentence,
    text: str,
    stated: Sequence[Quantity],
    line: str,
    ref: int,
    say: ProblemTexts,
) -> list[Problem]:
    """ "5 hours" where the line restating the sentence says "5 minutes", or "3 个自然日" where it
    says "3 个工作日": the number is grounded, its unit is not (units of time are read by
    :func:`rag.check.durations.unit_of`, kinds of days by :func:`rag.check.units.day_kind`).
    ``text``: the sentence, digits normalised; ``stated``: its numbers, ranks left out."""
    language = detect_language(text)
    line, numbers, _ = _line(line, language)
    problems = []
    for unit in (unit_of, day_kind):
        theirs = [(q, unit(q, line)) for q in numbers]
        for quantity in stated:
            own = unit(quantity, text)
            units = {other for q, other in theirs if other and q.values & quantity.values}
            if own is None or not units or own in units:
                continue
            instead = [_shown(q, line, language) for q, other in theirs if other in units]
            message = say.swapped(_shown(quantity, text, language), ref, instead)
            problems.append(Problem("misattributed_number", message, sentence.text, (ref,)))
    return problems


def _shown(quantity: Quantity, text: str, language: Language) -> str:
    number = count_of(quantity, text, language)
    return number.shown if number else text[quantity.start : quantity.end]


def swapped(
    sentence: Sentence,
    grounded: Sequence[Quantity],
    refs: Sequence[int],
    sources: CitedSources,
    given: frozenset[float],
    say: ProblemTexts,
) -> list[Problem]:
    """A problem for each number of ``sentence`` (``grounded``; ``given``: the question's
    numbers and the answer's own results) that the passage restating the sentence counts
    differently."""
    language = detect_language(sentence.plain)
    text = normalise_digits(sentence.plain)
    said = frozenset().union(*(q.values for q in grounded))
    # Written in a cited source: not given, derived ("贵 800 元") nor converted ("1 year").
    counts = _counts(grounded, text, language)
    written = sources.amounts(refs)
    mine = [c for c in counts if c.values & written and not c.values & given]
    wanted = content_words(sentence.plain, language)
    if not mine or len(wanted) < MIN_CONTENT_WORDS:
        return []
    stated = [q for q in quantities(text) if not q.ordinal]
    problems = []
    for ref in refs:
        if sources.language(ref) != language:
            continue
        window = sources.best(ref, language, wanted)
        if coverage(wanted, window.held(wanted)) < MIN_RESTATED:
            continue
        lines = (Window.of(piece, language) for piece in source_sentences(window.text))
        line = max(lines, key=lambda w: len(w.held(wanted)))
        theirs = _line(line.text, language)[2]
        problems += _reunited(sentence, text, stated, line.text, ref, say)
        for number in mine:
            same = [c for c in theirs if c.unit == number.unit]
            if any(c.values & number.values for c in same) or all(c.values & said for c in same):
                continue  # the line says it too, or says only what the sentence also says
            instead = [c.shown for c in same if not c.values & said]
            message = say.swapped(number.shown, ref, instead)
            problems.append(Problem("misattributed_number", message, sentence.text, (ref,)))
    return list(dict.fromkeys(problems))
