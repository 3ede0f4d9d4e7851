"""``python -m bot`` with a bad SCOPES_FILE stops before opening the index, with one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.root.run import main


def test_a_bad_scopes_file_stops_the_bot_with_file_line_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "scopes.toml"
    path.write_text('[scopes]\nhr = ["hr/**"]\n\n[channels]\nC0PUB0001 = "public"\n', "utf-8")
    monkeypatch.chdir(tmp_path)  # no .env from the working tree
    monkeypatch.setenv("SCOPES_FILE", str(path))
    monkeypatch.setenv("DOCS_DIR", str(tmp_path / "no-docs-opened"))
    monkeypatch.delenv("SLACK_BOT_TOKEN", raising=False)
    assert main() == 2
    err = capsys.readouterr().err
    assert err == (
        f"citebot: {path}:5: [channels] C0PUB0001: scope 'public' is not defined in [scopes] "
        "(defined: hr)\n"
    )
