"""SOURCES_FILE and SYNC_SECONDS as settings; a bad SOURCES_FILE stops ``python -m bot``."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.root.run import main
from rag.settings import Settings, SettingsError


def test_no_sources_by_default_and_a_sync_every_15_minutes() -> None:
    settings = Settings.from_env({})
    assert (settings.sources_file, settings.sync_seconds) == (None, 900.0)


def test_sync_seconds_zero_turns_the_bots_sync_off_and_negative_is_refused() -> None:
    assert Settings.from_env({"SYNC_SECONDS": "0"}).sync_seconds == 0
    with pytest.raises(SettingsError, match=r"SYNC_SECONDS='-1' must be a number >= 0"):
        Settings.from_env({"SYNC_SECONDS": "-1"})


def test_a_sources_file_naming_an_unset_variable_stops_the_bot_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sources.toml"
    path.write_text(
        '[sources.ops]\nkind = "confluence-dc"\nurl = "https://wiki.acme.internal"\n'
        'spaces = ["OPS"]\ntoken_env = "CONFLUENCE_PAT"\n',
        "utf-8",
    )
    monkeypatch.chdir(tmp_path)  # no .env from the working tree
    monkeypatch.setenv("SOURCES_FILE", str(path))
    monkeypatch.setenv("DOCS_DIR", str(tmp_path / "no-docs-opened"))
    monkeypatch.delenv("CONFLUENCE_PAT", raising=False)
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)

    assert main() == 2
    assert capsys.readouterr().err == (
        f"citebot: SOURCES_FILE {path}: [sources.ops] token_env: the variable CONFLUENCE_PAT "
        "is not set; set it or name another\n"
    )
