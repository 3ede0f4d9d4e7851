"""The figures ``python -m rag check-eval`` prints: how often the checker flags what it should.

*Catch* is the share of answers labelled ``unsupported`` that were flagged (sent to review);
*false alarm* the share of answers labelled ``supported`` that were flagged. Both are split by
whether the answer contains a number and by ``origin`` (which model or dataset wrote it), so a
rule that only helps one kind of answer shows as such. Without labels only counts are printed.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rag.check.claims import MIN_SUPPORT
from rag.check.screen import Screening

if TYPE_CHECKING:
    from rag.check.judge import JudgeOutcome

SWEEP = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)


@dataclass(frozen=True, slots=True)
class Judged:
    label: str | None
    origin: str
    has_number: bool | None
    screening: Screening
    elapsed_ms: float
    flagged_as: bool | None = None
    """Set when re-judging under another rule (per-kind rows, the threshold table)."""
    judge: JudgeOutcome | None = None
    """What the model judge cost on this answer, when it was asked."""

    @property
    def flagged(self) -> bool:
        return self.screening.flagged if self.flagged_as is None else self.flagged_as


def _rate(hits: int, total: int) -> str:
    return "-" if total == 0 else f"{hits / total:6.1%} ({hits}/{total})"


def rates(items: Iterable[Judged]) -> tuple[str, str]:
    """(catch, false alarm) of ``items`` as printable shares."""
    bad = [item for item in items if item.label == "unsupported"]
    good = [item for item in items if item.label == "supported"]
    return (
        _rate(sum(item.flagged for item in bad), len(bad)),
        _rate(sum(item.flagged for item in good), len(good)),
    )


def _rows(items: Sequence[Judged], key: Callable[[Judged], str]) -> list[str]:
    groups: dict[str, list[Judged]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    lines = []
    for name in sorted(groups):
        catch, alarm = rates(groups[name])
        lines.append(f"  {name:<44} {catch:>22} {alarm:>22}")
    return lines


def _percentile(values: Sequence[float], share: float) -> float:
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[round(share * 100) - 1]


def summary(items: Sequence[Judged]) -> str:
    flagged = sum(item.flagged for item in items)
    kinds = Counter(p.kind for item in items for p in item.screening.report.problems)
    timings = [item.elapsed_ms for item in items]
    lines = [
        f"answers judged: {len(items)}, flagged (sent to review): {flagged}",
        "problem kinds: " + (", ".join(f"{k} {n}" for k, n in kinds.most_common()) or "none"),
        f"checker latency per answer: p50 {_percentile(timings, 0.5):.1f} ms, "
        f"p95 {_percentile(timings, 0.95):.1f} ms",
    ]
    lines += _judge_lines(items)
    if not any(item.label for item in items):
        return "\n".join(lines)
    header = f"  {'':<44} {'catch (unsupported)':>22} {'false alarm (supp.)':>22}"
    lines += ["", header, *_rows(items, lambda item: "all")]
    lines += _rows(items, _numbers_row)
    lines += ["by origin:", *_rows(items, lambda item: item.origin or "-")]
    lines += ["answers with a problem of this kind:"]
    for kind in sorted(kinds):
        marked = [replace(item, flagged_as=_has(item, kind)) for item in items]
        lines += _rows(marked, _Named(kind))
    lines += [
        f"if the support threshold were t (now {MIN_SUPPORT['en']:g} en / "
        f"{MIN_SUPPORT['zh']:g} zh; other rules unchanged):"
    ]
    for threshold in SWEEP:
        swept = [replace(item, flagged_as=_flagged_at(item, threshold)) for item in items]
        lines += _rows(swept, _Named(f"t = {threshold:.2f}"))
    return "\n".join(lines)


def _judge_lines(items: Sequence[Judged]) -> list[str]:
    """What the model judge cost, per answer it was asked about (nothing when it is off)."""
    outcomes = [item.judge for item in items if item.judge is not None and item.judge.calls]
    if not outcomes:
        return []
    latency = [outcome.latency_ms for outcome in outcomes]
    tokens = [float(outcome.tokens) for outcome in outcomes]
    unavailable = sum(
        any(p.kind == "judge_unavailable" for p in outcome.problems) for outcome in outcomes
    )
    return [
        f"model judge: {sum(o.calls for o in outcomes)} calls for {len(outcomes)} answers, "
        f"{unavailable} without a usable verdict (sent to review)",
        f"model judge per answer: latency p50 {_percentile(latency, 0.5):.0f} ms, "
        f"p95 {_percentile(latency, 0.95):.0f} ms; tokens mean {statistics.fmean(tokens):.0f}, "
        f"p95 {_percentile(tokens, 0.95):.0f}",
    ]


def _numbers_row(item: Judged) -> str:
    if item.has_number is None:
        return "numbers unknown"
    return "with numbers" if item.has_number else "without numbers"


@dataclass(frozen=True, slots=True)
class _Named:
    """One row for all items (a per-kind or per-threshold line)."""

    name: str

    def __call__(self, item: Judged) -> str:
        return self.name


def _has(item: Judged, kind: str) -> bool:
    return any(problem.kind == kind for problem in item.screening.report.problems)


def _flagged_at(item: Judged, threshold: float) -> bool:
    screening = item.screening
    if screening.refused is not None:
        return False
    others = any(p.kind != "unsupported_claim" for p in screening.report.problems)
    return others or screening.report.weakest_support < threshold
