"""calibration.json: a versioned, validated round trip; a bad file is one warning, no crash."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict
from pathlib import Path

import pytest

from rag.search.calibration import (
    CALIBRATION_FILE,
    Calibration,
    load_calibration,
    save_calibration,
)

CALIBRATION = Calibration(0.42, "lexical", 10, 6, 4, 0.9, 0.1, 0.1, "v1")


def test_saved_calibration_reads_back_equal_and_says_its_version(tmp_path: Path) -> None:
    path = save_calibration(tmp_path, CALIBRATION)
    assert json.loads(path.read_text(encoding="utf-8"))["v"] == 1
    assert load_calibration(tmp_path, "lexical") == CALIBRATION


def test_a_file_written_before_the_version_field_still_reads(tmp_path: Path) -> None:
    (tmp_path / CALIBRATION_FILE).write_text(json.dumps(asdict(CALIBRATION)), encoding="utf-8")
    assert load_calibration(tmp_path, "lexical") == CALIBRATION


@pytest.mark.parametrize(
    "change", [{"v": 2}, {"questions": "10"}, {"questions": True}, {"min_score": None}]
)
def test_a_file_that_does_not_validate_is_one_warning_and_the_default(
    tmp_path: Path, change: dict[str, object], caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / CALIBRATION_FILE).write_text(
        json.dumps({**asdict(CALIBRATION), **change}), encoding="utf-8"
    )
    with caplog.at_level(logging.WARNING, logger="rag.search.calibration"):
        assert load_calibration(tmp_path, "lexical") is None
    [record] = caplog.records
    assert "\n" not in record.getMessage()
    assert next(iter(change)) in record.getMessage()
