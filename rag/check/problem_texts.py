"""What the citation checker tells a reviewer, in the asker's language.

Kept apart from the checking so the wording can change without touching the rules, and so a
reader sees every sentence a reviewer may get in one place. Each text names the concrete
offender (the number, the marker, the calculation). A *message* stands alone and quotes the
start of its sentence; a *note* (the ``*_note`` methods) is said under the sentence quoted on
a review card, so it does not quote it again, and says what the cited source has instead of a
wrong name or number when :mod:`rag.check.counterparts` finds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rag.check.arithmetic import Calculation
from rag.check.counterparts import Instead
from rag.check.numbers import Quantity
from rag.check.totals import Misstated, Unsummed
from rag.language import Language

EXCERPT_CHARS = 40


def format_number(value: float) -> str:
    """``3420.0`` -> ``3420``, ``533.333`` -> ``533.33``."""
    if abs(value - round(value)) < 1e-9:
        return str(round(value))
    return f"{value:.2f}".rstrip("0").rstrip(".")


def excerpt(sentence: str) -> str:
    sentence = " ".join(sentence.split())
    return sentence if len(sentence) <= EXCERPT_CHARS else sentence[: EXCERPT_CHARS - 1] + "…"


def _shown(quantity: Quantity) -> str:
    text = quantity.text
    return text if len(text) <= EXCERPT_CHARS // 2 else text[: EXCERPT_CHARS // 2 - 1] + "…"


def _markers(numbers: Sequence[int]) -> str:
    return "".join(f"[{n}]" for n in numbers)


_ZH_FLIPPED = {
    "obligation": "是否必须",
    "permission": "是否可以",
    "polarity": "是与否",
    "direction": "多少或先后",
}
_EN_FLIPPED = {
    "obligation": "what is required",
    "permission": "what is allowed",
    "polarity": "yes or no",
    "direction": "which way a limit or an order goes",
}
"""What a modality_mismatch turned round: a duty, a permission, a plain yes / no, or a limit
or order (longer / shorter, 以上 / 以下, before / after)."""


@dataclass(frozen=True, slots=True)
class ProblemTexts:
    language: Language
    n_hits: int
    question_names: bool = True
    """The question grounds names (not when it asks yes or no, :mod:`rag.check.yes_no`)."""

    @property
    def _zh(self) -> bool:
        return self.language == "zh"

    def _available(self) -> str:
        if self.n_hits == 0:
            return "本次没有提供任何资料" if self._zh else "no sources were provided"
        span = "1" if self.n_hits == 1 else f"1~{self.n_hits}"
        return f"本次只提供了 {span}" if self._zh else f"this answer had sources {span}"

    def unknown(self, n: int) -> str:
        if self._zh:
            return f"引用了不存在的编号 [{n}]，{self._available()}"
        return f"cites [{n}], which does not exist: {self._available()}"

    def no_citation_at_all(self) -> str:
        if self._zh:
            return "回答没有引用任何资料：每条事实都应在句后标注出处，如 [1]"
        return "the answer cites no source at all: every claim needs its source, like [1]"

    def uncited(self, sentence: str) -> str:
        if self._zh:
            return f"这句话陈述了事实却没有标注出处：「{excerpt(sentence)}」"
        return f"claim without a source: “{excerpt(sentence)}”"

    def ungrounded(self, missing: Sequence[Quantity], refs: Sequence[int]) -> str:
        if self._zh:
            numbers = "".join(f"「{_shown(q)}」" for q in missing)
            where = f"所引资料 {_markers(refs)} " if refs else "提供的资料"
            return f"数字{numbers}在{where}里找不到，也不是回答中算式的结果"
        numbers = ", ".join(f"“{_shown(q)}”" for q in missing)
        where = f"the cited source {_markers(refs)}" if refs else "the sources provided"
        return f"{numbers} not found in {where}, nor the result of a calculation in the answer"

    def misplaced(
        self, quantity: Quantity, ref: int, holding: Sequence[str], named: Sequence[str]
    ) -> str:
        """A number the cited table gives in another row than the one the sentence names."""
        if self._zh:
            rows, subject = "」「".join(holding), "」「".join(named)
            return (
                f"「{_shown(quantity)}」在所引资料 [{ref}] 的表格里是「{rows}」那一行的，"
                f"回答却把它用在「{subject}」上"
            )
        rows, subject = "”, “".join(holding), "”, “".join(named)
        return (
            f"“{_shown(quantity)}” is in the row for “{rows}” of the table in [{ref}], but the "
            f"sentence gives it to “{subject}”"
        )

    def swapped(self, shown: str, ref: int, instead: Sequence[str]) -> str:
        """A number the cited passage's own statement of the sentence gives otherwise."""
        if self._zh:
            said = "」「".join(instead)
            return f"回答写「{shown}」，所引资料 [{ref}] 说同一件事的地方写的是「{said}」"
        said = "”, “".join(instead)
        return f"the answer says “{shown}”, where [{ref}] says the same thing with “{said}”"

    def arithmetic(self, calc: Calculation) -> str:
        stated = format_number(calc.sides[calc.wrong_at or 0])
        expected = format_number(calc.expected)
        if self._zh:
            return f"算式算错了：{calc.text}，左边实际等于 {expected}，不是 {stated}"
        return f"wrong arithmetic: {calc.text} — the left side comes to {expected}, not {stated}"

    def unsummed(self, found: Unsummed, calc: Calculation) -> str:
        parts = f" {found.operator} ".join(_shown(part) for part in found.parts)
        added = format_number(found.added)
        if self._zh:
            return f"分项对不上合计：这句写的 {parts} 得 {added}，算式却是 {calc.text}"
        return (
            f"the parts don't come to the total: the sentence gives {parts}, which make "
            f"{added}, but its formula is {calc.text}"
        )

    def difference(self, found: Misstated) -> str:
        a, b = found.compared
        gap = format_number(abs(min(a.values) - min(b.values)))
        said, a_shown, b_shown = _shown(found.difference), _shown(a), _shown(b)
        if self._zh:
            return f"差额对不上：这句说 {a_shown} 和 {b_shown} 相差 {said}，实际相差 {gap}"
        return (
            f"the difference doesn't match: the sentence puts {said} between {a_shown} and "
            f"{b_shown}, which differ by {gap}"
        )

    def unrelated(self, n: int, sentence: str) -> str:
        if self._zh:
            return f"引用 [{n}] 对不上：资料 [{n}] 里几乎没有这句话的内容「{excerpt(sentence)}」"
        return f"source [{n}] doesn't support “{excerpt(sentence)}”: it shares (almost) none of it"

    def unsupported(self, refs: Sequence[int], sentence: str) -> str:
        if self._zh:
            return f"所引资料 {_markers(refs)} 里找不到这句话的大部分内容：「{excerpt(sentence)}」"
        return f"most of “{excerpt(sentence)}” is not in the cited source {_markers(refs)}"

    def ungrounded_names(self, names: Sequence[str], refs: Sequence[int], sentence: str) -> str:
        if self._zh:
            shown = "".join(f"「{name}」" for name in names)
            return f"{shown}{self._not_in(refs)}：「{excerpt(sentence)}」"
        shown = ", ".join(f"“{name}”" for name in names)
        verb = "appears" if len(names) == 1 else "appear"
        return f"{shown} {verb}{self._not_in(refs)}: “{excerpt(sentence)}”"

    def _not_in(self, refs: Sequence[int]) -> str:
        """Where a name was looked for: the cited sources, and the question when it counts."""
        if self._zh:
            return f"不在所引资料 {_markers(refs)} 里" + (
                "，也不在问题里" if self.question_names else ""
            )
        if self.question_names:
            return f" in neither the cited source {_markers(refs)} nor the question"
        return f" in no cited source ({_markers(refs)})"

    def flipped(self, modal: str, refs: Sequence[int], sentence: str) -> str:
        if self._zh:
            said = f"与所引资料 {_markers(refs)} 说的相反：「{excerpt(sentence)}」"
            return _ZH_FLIPPED[modal] + said
        return (
            f"“{excerpt(sentence)}” states {_EN_FLIPPED[modal]} the opposite way to the cited "
            f"source {_markers(refs)}"
        )

    # -- notes: said under the quoted sentence on a review card ----------------------------

    def uncited_note(self) -> str:
        return (
            "这句话陈述了事实，却没有标注出处" if self._zh else "states a fact but cites no source"
        )

    def ungrounded_note(
        self, missing: Sequence[tuple[Quantity, Instead | None]], refs: Sequence[int]
    ) -> str:
        parts = []
        for quantity, instead in missing:
            said = _shown(quantity)
            if instead is not None:
                parts.append(self._instead(said, instead, "has"))
            elif self._zh:
                where = f"所引资料 {_markers(refs)} " if refs else "提供的资料"
                parts.append(f"「{said}」在{where}里找不到，也不是回答中算式的结果")
            else:
                where = f"the cited source {_markers(refs)}" if refs else "the sources provided"
                parts.append(f"“{said}” is not in {where}, nor the result of a calculation")
        return self._joined(parts)

    def names_note(self, names: Sequence[tuple[str, Instead | None]], refs: Sequence[int]) -> str:
        parts = []
        for name, instead in names:
            if instead is not None:
                parts.append(self._instead(name, instead, "names"))
            elif self._zh:
                parts.append(f"「{name}」{self._not_in(refs)}")
            else:
                parts.append(f"“{name}” is{self._not_in(refs)}")
        return self._joined(parts)

    def unrelated_note(self, n: int) -> str:
        if self._zh:
            return f"所引资料 [{n}] 里几乎没有这句话的内容"
        return f"the cited source [{n}] shares (almost) nothing with this sentence"

    def unsupported_note(self, refs: Sequence[int]) -> str:
        if self._zh:
            return f"所引资料 {_markers(refs)} 里找不到这句话的大部分内容"
        return f"most of this sentence is not in the cited source {_markers(refs)}"

    def flipped_note(self, modal: str, refs: Sequence[int]) -> str:
        if self._zh:
            return f"{_ZH_FLIPPED[modal]}与所引资料 {_markers(refs)} 说的相反"
        return f"states {_EN_FLIPPED[modal]} the opposite way to the cited source {_markers(refs)}"

    def _instead(self, said: str, instead: Instead, verb: str) -> str:
        if self._zh:
            return f"回答说「{said}」，所引资料 [{instead.ref}] 写的是「{instead.text}」"
        return f"the answer says “{said}”, [{instead.ref}] {verb} “{instead.text}”"

    def _joined(self, parts: Sequence[str]) -> str:
        return ("；" if self._zh else "; ").join(parts)


def conflict_message(
    language: Language, first: tuple[int, str, str], second: tuple[int, str, str]
) -> str:
    """Two current documents disagree: ``(n, title, value)`` of each side."""
    (n1, title1, value1), (n2, title2, value2) = first, second
    if language == "zh":
        return (
            f"两份现行文件说法不同：《{title1}》[{n1}] 为「{value1}」，《{title2}》[{n2}] 为"
            f"「{value2}」；请确认哪一份有效（或更正其中一份）。"
        )
    return (
        f"Two current documents disagree: “{title1}” [{n1}] says {value1}, “{title2}” [{n2}] "
        f"says {value2}; confirm which one applies (or correct the other)."
    )


def conflict_answer(language: Language, sides: Sequence[tuple[int, str, str, str]]) -> str:
    """The answer to a question two current documents answer differently: each side's
    ``(n, title, updated date, sentence)``, with its source. It goes to review, never
    straight to the asker."""
    if language == "zh":
        lines = ["两份现行文件对此规定不同："]
        for n, title, updated, sentence in sides:
            when = f"（更新于 {updated}）" if updated else ""
            lines.append(f"- 《{title}》{when}：{sentence.rstrip('。；;，, ')}。[{n}]")
        return "\n".join(lines)
    lines = ["Two current documents give different answers to this:"]
    for n, title, updated, sentence in sides:
        when = f" (updated {updated})" if updated else ""
        lines.append(f"- “{title}”{when}: {sentence.rstrip('.;, ')}. [{n}]")
    return "\n".join(lines)
