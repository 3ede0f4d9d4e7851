"""REFRESH_SECONDS, RETENTION_DAYS and RECORD_QUESTIONS: defaults, and clear errors."""

from __future__ import annotations

import pytest

from rag.settings import Settings, SettingsError


def test_defaults_scan_every_minute_keep_30_days_and_the_unanswered_texts() -> None:
    settings = Settings.from_env({})
    assert (settings.refresh_seconds, settings.retention_days, settings.record_questions) == (
        60.0,
        30,
        True,
    )


def test_zero_turns_the_scan_off_and_false_keeps_hashes_only() -> None:
    settings = Settings.from_env({"REFRESH_SECONDS": "0", "RECORD_QUESTIONS": "false"})
    assert settings.refresh_seconds == 0
    assert settings.record_questions is False


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"RECORD_QUESTIONS": "maybe"}, "RECORD_QUESTIONS='maybe' is neither on nor off"),
        ({"RETENTION_DAYS": "0"}, "RETENTION_DAYS='0' must be a number >= 1"),
        ({"REFRESH_SECONDS": "-5"}, "REFRESH_SECONDS='-5' must be a number >= 0"),
    ],
)
def test_bad_values_say_what_to_set(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message.replace("(", r"\(")):
        Settings.from_env(env)
