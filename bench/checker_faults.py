"""Faulty variants of a correct answer, for the checker benchmark (bench/checker.py).

Each maker takes ``(answer, hits, question, rng)`` and returns the answer with one fault put
in, or None when the answer offers no place for that fault. A variant is only a fault when it
really is one: an altered or invented number never takes a value that any retrieved source or
the question contains; a moved citation only points at a source from another document.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from rag.check.citations import sentences
from rag.check.numbers import key, normalise_digits, quantities, source_quantities
from rag.check.source_numbers import number_values
from rag.check.units import counted
from rag.language import detect_language
from rag.markers import MARKER
from rag.results import Hit

Maker = Callable[[str, Sequence[Hit], str, random.Random], str | None]

EXPECTED_KIND: dict[str, str | None] = {
    "altered_number": "ungrounded_number",
    "swapped_number": "misattributed_number",
    "invented_number": "ungrounded_number",
    "unknown_reference": "unknown_reference",
    "wrong_arithmetic": "wrong_arithmetic",
    "moved_citation": "unrelated_source",
    "uncited_claim": "no_citation",
    # labels of hand-written cases
    "ungrounded_number": "ungrounded_number",
    "no_citation": "no_citation",
    "unrelated_source": "unrelated_source",
    "misattributed_number": "misattributed_number",
    "contradiction": "modality_mismatch",
    "changed_condition": "unsupported_claim",
}
ZH_DIGITS = "零一二三四五六七八九"
_TERMINAL = re.compile(r"[。！？；!?.]+$")
_CALC_NEAR = re.compile(r"[=×÷*/+−]")
_ARABIC = re.compile(r"\d[\d,]*(?:\.\d+)?")


def cite(sentence: str, n: int) -> str:
    """``sentence`` with ``[n]`` before its closing punctuation, as models place it."""
    sentence = sentence.strip()
    terminal = _TERMINAL.search(sentence)
    body, end = (sentence[: terminal.start()], terminal.group()) if terminal else (sentence, "")
    zh = detect_language(sentence) == "zh"
    space = "" if zh else " "
    return f"{body}{space}[{n}]{end or ('。' if zh else '.')}"


_LIST_NUMBERING = re.compile(r"^\s*\d{1,2}(?:[.．](?!\d)|[)、])", re.MULTILINE)


def _mask(answer: str) -> str:
    """Markers and list numbering blanked out (same length): they are not amounts."""
    blank = MARKER.sub(lambda match: " " * len(match.group()), answer)
    return _LIST_NUMBERING.sub(lambda match: " " * len(match.group()), blank)


def _taken(hits: Sequence[Hit], question: str) -> frozenset[float]:
    return number_values(question).union(*(number_values(hit.chunk.text) for hit in hits))


def _fresh(rng: random.Random, taken: frozenset[float], low: int, high: int) -> int | None:
    options = [n for n in range(low, high + 1) if key(n) not in taken and key(n / 100) not in taken]
    return rng.choice(options) if options else None


def alter_number(answer: str, hits: Sequence[Hit], question: str, rng: random.Random) -> str | None:
    masked = _mask(answer)
    candidates = [
        q
        for q in quantities(masked)
        if not _CALC_NEAR.search(masked[max(0, q.start - 12) : q.end + 12])
        and (q.text[0].isdigit() or q.text[0] in ZH_DIGITS + "两十")
    ]
    if not candidates:
        return None
    quantity = rng.choice(candidates)
    taken = _taken(hits, question)
    written = answer[quantity.start : quantity.end]
    digits = _ARABIC.match(written)
    if digits:
        value = float(digits.group().replace(",", ""))
        scale = 10 ** max(0, len(str(int(value))) - 2)
        options = [
            value + sign * step * scale
            for step in range(1, 10)
            for sign in (1, -1)
            if value + sign * step * scale > 0
            and key(value + sign * step * scale) not in taken
            and key((value + sign * step * scale) / 100) not in taken
        ]
        if not options:
            return None
        new = rng.choice(options)
        shown = str(int(new)) if new == int(new) else f"{new:g}"
        start = quantity.start + digits.start()
        return answer[:start] + shown + answer[quantity.start + digits.end() :]
    run = re.match(r"[零一二两三四五六七八九十百千万]+", written)
    if run is None:
        return None
    digit = _fresh(rng, taken, 2, 9)
    if digit is None:
        return None
    return answer[: quantity.start] + ZH_DIGITS[digit] + answer[quantity.start + run.end() :]


def swap_number(answer: str, hits: Sequence[Hit], question: str, rng: random.Random) -> str | None:
    """A number replaced by another that the sources count in the same unit ("转班两次" ->
    "转班三次" where the source also says "3 个工作日"): grounded, but not what the source says
    about this."""
    language = detect_language(answer)
    masked = normalise_digits(_mask(answer))
    mine = [
        (q, number)
        for q in quantities(masked)
        for number in counted([q], masked, language)
        if q.text[0].isdigit() and not _CALC_NEAR.search(masked[max(0, q.start - 12) : q.end + 12])
    ]
    avoid = _taken([], question).union(*(number.values for _, number in mine))
    options = [
        (q, value)
        for q, number in mine
        for hit in hits
        for theirs in counted(source_quantities(hit.chunk.text), hit.chunk.text, language)
        if theirs.unit == number.unit
        for value in theirs.values
        if value == int(value) and value not in avoid
    ]
    if not options:
        return None
    q, value = rng.choice(sorted(set(options), key=lambda option: (option[0].start, option[1])))
    digits = _ARABIC.match(answer, q.start)
    if digits is None:
        return None
    return answer[: q.start] + str(int(value)) + answer[digits.end() :]


def _insertion_point(answer: str, marker: re.Match[str]) -> int:
    point = marker.start()
    while point > 0 and answer[point - 1] in " 。.!?！？；;":
        point -= 1
    return point


def invent_number(
    answer: str, hits: Sequence[Hit], question: str, rng: random.Random
) -> str | None:
    markers = list(MARKER.finditer(answer))
    if not markers:
        return None
    taken = _taken(hits, question)
    point = _insertion_point(answer, rng.choice(markers))
    if detect_language(answer) == "zh":
        small = _fresh(rng, taken, 2, 9)
        templates = ["，前后共{n}年", "，约有{n}人参加", "，需另交{n}元", "，占比约{n}%"]
        if small is not None:
            templates += [f"，历时{ZH_DIGITS[small]}个月", f"，每年{ZH_DIGITS[small]}次"]
    else:
        templates = [", for about {n} days", ", at a cost of {n} CNY", ", about {n}% of the total"]
    number = _fresh(rng, taken, 11, 97)
    if number is None:
        return None
    clause = rng.choice(templates).format(n=number)
    return answer[:point] + clause + answer[point:]


def unknown_reference(
    answer: str, hits: Sequence[Hit], question: str, rng: random.Random
) -> str | None:
    markers = list(MARKER.finditer(answer))
    if not markers:
        return None
    marker = rng.choice(markers)
    bad = len(hits) + rng.randint(1, 5)
    first = re.search(r"\d+", marker.group())
    forms = [f"[{bad}]", f"【{bad}】", f"[{first.group() if first else 1}, {bad}]"]
    return answer[: marker.start()] + rng.choice(forms) + answer[marker.end() :]


def arabic_numbers(text: str) -> list[int]:
    return [
        int(value)
        for q in quantities(text)
        if q.text[0].isdigit() and "%" not in q.text
        for value in sorted(q.values)[:1]
        if value == int(value) and value >= 2
    ]


def sum_sentence(a: int, b: int, total: int, k: int, zh: bool) -> str:
    return (
        f"两者合计 {a} + {b} = {total}[{k}]。" if zh else f" Together: {a} + {b} = {total} [{k}]."
    )


def wrong_arithmetic(
    answer: str, hits: Sequence[Hit], question: str, rng: random.Random
) -> str | None:
    masked = _mask(answer)
    results = list(re.finditer(r"=\s*[¥$]?(\d[\d,]*(?:\.\d+)?)", masked))
    factor = 1 + rng.choice([0.1, 0.2, 0.25, -0.1, -0.2, 0.5])
    if results:
        result = results[-1]
        value = float(result[1].replace(",", ""))
        new = round(value * factor) if value == int(value) else round(value * factor, 2)
        if abs(new - value) <= 0.02 * max(abs(value), 1):
            new = value + 10
        shown = str(int(new)) if new == int(new) else str(new)
        return answer[: result.start(1)] + shown + answer[result.end(1) :]
    markers = list(MARKER.finditer(answer))
    numbers = sorted(set(arabic_numbers(masked)))
    if not markers or len(numbers) < 2:
        return None
    a, b = rng.sample(numbers, 2)
    k = int(re.findall(r"\d+", markers[0].group())[0])
    wrong = round((a + b) * factor)
    if abs(wrong - (a + b)) <= 0.02 * (a + b):
        wrong = a + b + 10
    return answer + sum_sentence(a, b, wrong, k, detect_language(answer) == "zh")


def moved_citation(
    answer: str, hits: Sequence[Hit], question: str, rng: random.Random
) -> str | None:
    markers = [m for m in MARKER.finditer(answer) if re.fullmatch(r".\d+.", m.group())]
    if not markers or len(hits) < 2:
        return None
    marker = rng.choice(markers)
    k = int(marker.group()[1:-1])
    if not 1 <= k <= len(hits):
        return None
    others = [
        n for n in range(1, len(hits) + 1) if hits[n - 1].chunk.source != hits[k - 1].chunk.source
    ]
    if not others:
        return None
    moved = marker.group()[0] + str(rng.choice(others)) + marker.group()[-1]
    return answer[: marker.start()] + moved + answer[marker.end() :]


def uncited_claim(
    answer: str, hits: Sequence[Hit], question: str, rng: random.Random
) -> str | None:
    found = sentences(answer)
    if len(found) < 2 or not found[-1].cites or not any(s.cites for s in found[:-1]):
        return None
    start = answer.rfind(found[-1].text)
    if start < 0:
        return None
    last = MARKER.sub("", found[-1].text)
    return answer[:start] + last + answer[start + len(found[-1].text) :]


FAULTS: dict[str, Maker] = {
    "altered_number": alter_number,
    "swapped_number": swap_number,
    "invented_number": invent_number,
    "unknown_reference": unknown_reference,
    "wrong_arithmetic": wrong_arithmetic,
    "moved_citation": moved_citation,
    "uncited_claim": uncited_claim,
}
