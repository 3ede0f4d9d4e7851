"""Choosing and storing the refusal threshold from labelled questions.

Refusing is the positive class: a question whose answer is not in the documents should be
refused. Given each question's gate score (the first hit's :attr:`Hit.score`) and whether it
should be refused, :func:`best_threshold` picks the threshold that maximises the F1 of
refusing. Among equally good thresholds it takes the middle of the best run of gaps between
neighbouring scores, so the choice sits between the groups rather than on one question's score.

``python -m rag calibrate`` writes the result to ``INDEX_DIR/calibration.json``; the index
reads it back (:func:`load_calibration`) when its gate is the one the threshold was measured
with, so a calibration never applies to scores on another scale.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from pydantic import ValidationError, field_validator

from rag.storage.records import Record, check_version, validation_error

logger = logging.getLogger(__name__)

CALIBRATION_FILE = "calibration.json"


@dataclass(frozen=True, slots=True)
class RefusalMetrics:
    precision: float
    recall: float
    f1: float
    false_refusal_rate: float
    """Share of answerable questions refused."""
    answered_unanswerable_rate: float
    """Share of unanswerable questions answered anyway (the invented-answer risk)."""


def refusal_metrics(refused: Sequence[bool], should_refuse: Sequence[bool]) -> RefusalMetrics:
    if len(refused) != len(should_refuse):
        msg = f"{len(refused)} decisions for {len(should_refuse)} labels"
        raise ValueError(msg)
    pairs = list(zip(refused, should_refuse, strict=True))
    true_pos = sum(1 for r, s in pairs if r and s)
    false_pos = sum(1 for r, s in pairs if r and not s)
    false_neg = sum(1 for r, s in pairs if not r and s)
    answerable = sum(1 for s in should_refuse if not s)
    unanswerable = len(pairs) - answerable
    precision = true_pos / (true_pos + false_pos) if true_pos + false_pos else 0.0
    recall = true_pos / (true_pos + false_neg) if true_pos + false_neg else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return RefusalMetrics(
        precision=precision,
        recall=recall,
        f1=f1,
        false_refusal_rate=false_pos / answerable if answerable else 0.0,
        answered_unanswerable_rate=false_neg / unanswerable if unanswerable else 0.0,
    )


@dataclass(frozen=True, slots=True)
class ThresholdChoice:
    threshold: float
    metrics: RefusalMetrics


def best_threshold(scores: Sequence[float], should_refuse: Sequence[bool]) -> ThresholdChoice:
    """The threshold (refuse when ``score < threshold``) maximising the F1 of refusing."""
    if len(scores) != len(should_refuse) or not scores:
        msg = f"need one label per score and at least one score, got {len(scores)} scores"
        raise ValueError(msg)
    values = sorted(set(scores))
    # Candidates: below everything, every midpoint between neighbours, above everything.
    middles = ((a + b) / 2 for a, b in itertools.pairwise(values))
    cuts = [values[0] - 1e-6, *middles, values[-1] + 1e-6]
    results = [refusal_metrics([s < cut for s in scores], should_refuse).f1 for cut in cuts]
    best = max(results)
    best_runs: list[list[int]] = []
    for i, f1 in enumerate(results):
        if math.isclose(f1, best, abs_tol=1e-12):
            if best_runs and best_runs[-1][-1] == i - 1:
                best_runs[-1].append(i)
            else:
                best_runs.append([i])
    run = max(best_runs, key=len)
    low, high = cuts[run[0]], cuts[run[-1]]
    threshold = (low + high) / 2
    return ThresholdChoice(
        round(threshold, 4),
        refusal_metrics([s < threshold for s in scores], should_refuse),
    )


@dataclass(frozen=True, slots=True)
class Calibration:
    min_score: float
    gate: str
    """:attr:`rag.search.gate.GateModel.identity` the scores were computed with."""
    questions: int
    answerable: int
    unanswerable: int
    f1: float
    false_refusal_rate: float
    answered_unanswerable_rate: float
    index_version: str


CALIBRATION_FORMAT = 1


class CalibrationFile(Record):
    """``calibration.json``: a :class:`Calibration` and its format version (files written
    before the version field existed are version 1)."""

    v: int = CALIBRATION_FORMAT
    min_score: float
    gate: str
    questions: int
    answerable: int
    unanswerable: int
    f1: float
    false_refusal_rate: float
    answered_unanswerable_rate: float
    index_version: str

    @field_validator("v")
    @classmethod
    def _readable(cls, version: int) -> int:
        return check_version(version, CALIBRATION_FORMAT)


def save_calibration(index_dir: Path, calibration: Calibration) -> Path:
    path = index_dir / CALIBRATION_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    record = CalibrationFile(v=CALIBRATION_FORMAT, **asdict(calibration))
    partial.write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
    partial.replace(path)
    return path


def load_calibration(index_dir: Path, gate: str) -> Calibration | None:
    """The stored calibration when it was measured with ``gate``; else ``None``."""
    path = index_dir / CALIBRATION_FILE
    if not path.exists():
        return None
    try:
        record = CalibrationFile.model_validate_json(path.read_bytes())
    except OSError as error:
        logger.warning("%s is unreadable (%s); using the default threshold", path, error)
        return None
    except ValidationError as error:
        reason = validation_error(CALIBRATION_FILE, error)
        logger.warning("%s is unreadable (%s); using the default threshold", path, reason)
        return None
    calibration = Calibration(**record.model_dump(exclude={"v"}))
    if calibration.gate != gate:
        logger.warning(
            "%s was measured with %s, the index now uses %s; using the default threshold "
            "(run `python -m rag calibrate` again)",
            path,
            calibration.gate,
            gate,
        )
        return None
    return calibration


def _cell(count: int, peak: int, width: int) -> str:
    bar = "#" * math.ceil(count / peak * width)
    return f"{bar} {count}" if bar else str(count)


def text_histogram(
    groups: Mapping[str, Sequence[float]], *, threshold: float, bins: int = 16, bar: int = 24
) -> str:
    """One row per score bin, one bar per group; the threshold's bin is marked ``<- threshold``."""
    every = [v for values in groups.values() for v in values]
    if not every:
        return "(no scores)"
    low, high = min(every), max(every)
    step = (high - low) / bins or 1.0
    counts = {name: [0] * bins for name in groups}
    for name, values in groups.items():
        for value in values:
            counts[name][min(int((value - low) / step), bins - 1)] += 1
    peak = max(max(row) for row in counts.values()) or 1
    column = bar + 6
    header = f"{'score from':>10}  " + "".join(f"{name:<{column}}" for name in groups)
    lines = [header.rstrip()]
    for i in range(bins):
        start = low + i * step
        cells = "".join(f"{_cell(counts[name][i], peak, bar):<{column}}" for name in groups)
        mark = "<- threshold" if start <= threshold < start + step else ""
        lines.append(f"{start:>10.3f}  {cells}{mark}".rstrip())
    return "\n".join(lines)
