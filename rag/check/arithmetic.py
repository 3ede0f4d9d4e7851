"""Calculations written out in an answer, evaluated with a tiny parser (never ``eval()``).

The system prompt asks the model to show the formula for every amount, e.g.
``4800 × 12 ÷ 16 − 4800 × 12 ÷ 16 × 5% = 3420 元``. This module finds such calculations in a
sentence and checks them: the sides of ``a = b = c`` must agree to within rounding (two
decimals, or 0.5 % of the value, so ``4800 ÷ 9 = 533`` is fine and ``… = 3500`` is not).

What counts as a calculation: numbers joined by ``+ - × x * ÷ /`` and parentheses, at least one
``=`` (or ``≈``) and at least one operator. Units and labels next to the numbers are ignored
(``手续费 3600 元 × 5% = 180 元``, ``4800 元/16 课时 = 300 元/课时``); a pair of sides whose
units differ (``16 × 45 分钟 = 12 小时``) is a unit conversion and is not compared. Anything the
parser cannot read is not judged. ``5%`` is 0.05, ``4,800`` is 4800, ``3万`` is 30000.

Correct calculations *produce* numbers: every side and every intermediate result counts as
grounded afterwards, so "应退 3420 元" after the calculation needs no source of its own.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from rag.check.numbers import key, normalise_digits
from rag.errors import CitebotError
from rag.language import IDEOGRAPHS

ABSOLUTE_TOLERANCE = 0.005
"""Rounding to two decimals."""
RELATIVE_TOLERANCE = 0.005
"""0.5 % of the value: rounding to whole yuan of a few hundred or more."""
MAX_NESTING = 32
"""Deeper parentheses or signs than this are not arithmetic anyone writes: not judged."""
MAX_LABEL_CHARS = 6
"""A unit or label inside a calculation (元, 课时, 手续费); longer words end the calculation."""

_OPERATORS = str.maketrans("×÷／−–＋－＝（）＊", "*//--+-=()*")
_TIMES_X = re.compile(r"(?<=[\d)%])(\s*)[xX](?=\s*[\d(¥￥$])")
_TOKEN = re.compile(
    r"(?P<num>[¥￥$€£]?\s?\d+(?:,\d{3})*(?:\.\d+)?(?:\s?[万亿])?(?:\s?%)?)"
    r"|(?P<op>[-+*/])|(?P<lp>\()|(?P<rp>\))|(?P<eq>[=≈])"
    rf"|(?P<word>[A-Za-z]+|[{IDEOGRAPHS}]+)|(?P<space>\s+)|(?P<other>.)"
)


def normalise(text: str) -> str:
    """Operators and digits to ASCII, ``x`` between numbers to ``*``; length is kept."""
    text = normalise_digits(text).translate(_OPERATORS)
    return _TIMES_X.sub(lambda match: match[1] + "*", text)


def _number(literal: str) -> float:
    body = literal.lstrip("¥￥$€£ ").replace(",", "").replace(" ", "")
    percent = body.endswith("%")
    body = body.rstrip("%")
    multiplier = 1.0
    if body[-1] in "万亿":
        multiplier = 10_000.0 if body[-1] == "万" else 100_000_000.0
        body = body[:-1]
    value = float(body) * multiplier
    return value / 100 if percent else value


@dataclass(frozen=True, slots=True)
class _Tok:
    kind: str
    text: str
    start: int
    end: int


class _Unreadable(CitebotError):
    """The span is not an expression this parser reads: it is not judged."""


@dataclass(slots=True)
class _Parser:
    tokens: list[_Tok]
    position: int = 0
    produced: list[float] = field(default_factory=list)

    def parse(self) -> float:
        value = self._sum()
        if self.position != len(self.tokens):
            raise _Unreadable
        return value

    def _peek(self) -> str:
        return self.tokens[self.position].text if self.position < len(self.tokens) else ""

    def _sum(self, depth: int = 0) -> float:
        value = self._product(depth)
        while self._peek() in ("+", "-"):
            operator = self._peek()
            self.position += 1
            right = self._product(depth)
            value = value + right if operator == "+" else value - right
            self.produced.append(value)
        return value

    def _product(self, depth: int = 0) -> float:
        value = self._factor(depth)
        while self._peek() in ("*", "/"):
            operator = self._peek()
            self.position += 1
            right = self._factor(depth)
            if operator == "/" and right == 0:
                raise _Unreadable
            value = value * right if operator == "*" else value / right
            self.produced.append(value)
        return value

    def _factor(self, depth: int = 0) -> float:
        if self.position >= len(self.tokens) or depth > MAX_NESTING:
            raise _Unreadable
        token = self.tokens[self.position]
        self.position += 1
        if token.text in ("+", "-"):
            value = self._factor(depth + 1)
            return value if token.text == "+" else -value
        if token.kind == "num":
            return _number(token.text)
        if token.kind == "lp":
            value = self._sum(depth + 1)
            if self._peek() != ")":
                raise _Unreadable
            self.position += 1
            self.produced.append(value)
            return value
        raise _Unreadable


@dataclass(frozen=True, slots=True)
class Calculation:
    """One written-out calculation and what it comes to."""

    text: str
    """As written in the sentence, e.g. ``4800 × 12 ÷ 16 = 3500``."""
    sides: tuple[float, ...]
    """The value of each side of the ``=`` chain, left to right."""
    wrong_at: int | None
    """Index of the first side that disagrees with the side before it; None when correct."""
    produced: frozenset[float]
    """Comparable values (see :func:`rag.check.numbers.key`) the calculation legitimately yields."""
    claimed: frozenset[float]
    """Comparable values of the sides stated after the first wrong ``=`` (empty when right)."""
    start: int = 0
    """Where :attr:`text` starts in the text it was read from."""
    terms: tuple[float, ...] = ()
    """The numbers of the first side, in order (``4800 + 280`` -> 4800, 280)."""
    operators: frozenset[str] = frozenset()
    """The operators and parentheses of the first side, as ASCII (``+ - * / ( )``)."""

    @property
    def ok(self) -> bool:
        return self.wrong_at is None

    @property
    def expected(self) -> float:
        """What the side before the first wrong ``=`` comes to."""
        return self.sides[(self.wrong_at or 1) - 1]


def close(a: float, b: float) -> bool:
    difference = abs(a - b)
    if difference <= ABSOLUTE_TOLERANCE + 1e-9:
        return True
    return difference <= RELATIVE_TOLERANCE * max(abs(a), abs(b))


def _runs(text: str) -> list[list[_Tok]]:
    """Maximal stretches of numbers, operators, parentheses, ``=`` and short labels."""
    runs: list[list[_Tok]] = [[]]
    last = ""  # kind of the last token of the current run that is not a label
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        token = _Tok(kind, match.group().strip(), match.start(), match.end())
        if kind == "space":
            continue
        if kind == "other" or (kind == "word" and len(token.text) > MAX_LABEL_CHARS):
            runs.append([])
            last = ""
            continue
        if kind in ("num", "lp") and last in ("num", "rp"):
            runs.append([])  # two numbers side by side: two statements, not one expression
        runs[-1].append(token)
        last = kind if kind != "word" else last
    return [run for run in runs if any(t.kind == "eq" for t in run)]


def _side(tokens: list[_Tok]) -> tuple[list[_Tok], str]:
    """The expression of one side without labels, and its unit (the word after its last number)."""
    unit = ""
    for index, token in enumerate(tokens):
        if token.kind == "num":
            following = tokens[index + 1 : index + 2]
            unit = following[0].text if following and following[0].kind == "word" else ""
    expression = [t for t in tokens if t.kind != "word"]
    while expression and expression[-1].kind == "op":
        expression.pop()  # "300 元/课时": the rate's "/" has nothing after it
    return expression, unit


def _evaluate(parsed: list[tuple[list[_Tok], str]]) -> tuple[list[float], list[float]] | None:
    """Each side's value and the intermediate results, or ``None`` when a side can't be read."""
    values: list[float] = []
    produced: list[float] = []
    try:
        for side, _ in parsed:
            parser = _Parser(side)
            values.append(parser.parse())
            produced.extend(parser.produced)
    except _Unreadable:
        return None
    if not all(math.isfinite(value) for value in [*values, *produced]):
        return None  # a number too large for a float: not arithmetic anyone checks by hand
    return values, produced


def _first_wrong(values: list[float], units: list[str]) -> int | None:
    """The index of the first side that doesn't equal the one before it, if any."""
    for index in range(1, len(values)):
        if units[index - 1] and units[index] and units[index - 1] != units[index]:
            continue  # a unit conversion, not an equality of amounts
        if not close(values[index - 1], values[index]):
            return index
    return None


def _calculation(text: str, run: list[_Tok]) -> Calculation | None:
    sides: list[list[_Tok]] = [[]]
    for token in run:
        if token.kind == "eq":
            sides.append([])
        else:
            sides[-1].append(token)
    parsed = [_side(side) for side in sides]
    if parsed and not any(t.kind == "num" for t in parsed[0][0]):
        parsed = parsed[1:]  # "退费 = 4800 × …": a named left side
    if len(parsed) < 2 or any(not any(t.kind == "num" for t in side) for side, _ in parsed):
        return None
    if not any(sum(t.kind == "num" for t in side) >= 2 for side, _ in parsed):
        return None  # "1 课时 = 45 分钟": an equivalence, not a calculation
    evaluated = _evaluate(parsed)
    if evaluated is None:
        return None
    values, produced = evaluated
    wrong_at = _first_wrong(values, [unit for _, unit in parsed])
    good = values if wrong_at is None else values[:wrong_at]
    claimed = frozenset() if wrong_at is None else frozenset(map(key, values[wrong_at:]))
    start = next(t.start for side, _ in parsed for t in side)
    last = max(index for index, token in enumerate(run) if token.kind != "word")
    tail = run[last + 1 : last + 2]
    end = tail[0].end if tail else run[last].end
    return Calculation(
        text=text[start:end].strip(),
        sides=tuple(values),
        wrong_at=wrong_at,
        produced=frozenset(map(key, [*good, *produced])) - claimed,
        claimed=claimed,
        start=start,
        terms=tuple(_number(t.text) for t in parsed[0][0] if t.kind == "num"),
        operators=frozenset(t.text for t in parsed[0][0] if t.kind in ("op", "lp", "rp")),
    )


def calculations(text: str) -> list[Calculation]:
    """Every calculation written out in ``text`` that the parser can read, in reading order."""
    normalised = normalise(text)
    found = (_calculation(text, run) for run in _runs(normalised))
    return [calculation for calculation in found if calculation is not None]
