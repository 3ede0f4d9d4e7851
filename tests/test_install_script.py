"""scripts/install skips pip when pyproject.toml and the extras are unchanged, and shows pip's
output only when it fails (the demo starts without pip's minutes or setuptools' banner)."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FAKE_PYTHON = f"""#!/bin/sh
# python for everything but pip, which records its call and fails like a broken index
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then
  echo "$*" >> "$(dirname "$0")/pip-calls"
  echo "setuptools: editable install banner" >&2
  [ -f "$(dirname "$0")/pip-ok" ] && exit 0
  echo "ERROR: no matching distribution" >&2
  exit 1
fi
exec {sys.executable} "$@"
"""


def project(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "install", tmp_path / "scripts" / "install")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON, encoding="utf-8")
    python.chmod(0o755)
    return tmp_path


def install(root: Path, *extras: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(root / "scripts" / "install"), *extras],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def stamp(root: Path, extras: str) -> None:
    digest = hashlib.sha256((root / "pyproject.toml").read_bytes()).hexdigest()
    (root / ".venv" / ".citebot-installed").write_text(f"{digest} {extras}\n", encoding="utf-8")


def pip_calls(root: Path) -> list[str]:
    calls = root / ".venv" / "bin" / "pip-calls"
    return calls.read_text(encoding="utf-8").splitlines() if calls.exists() else []


def test_an_unchanged_install_runs_no_pip(tmp_path: Path) -> None:
    root = project(tmp_path)
    stamp(root, "[dev]")
    for extras in ((), ("dev",)):  # the demo's install is covered by the test's
        done = install(root, *extras)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert pip_calls(root) == []


def test_a_changed_pyproject_or_new_extras_run_pip_and_show_its_output_only_on_failure(
    tmp_path: Path,
) -> None:
    root = project(tmp_path)
    stamp(root, "")
    done = install(root, "dev")  # extras the install lacks
    assert done.returncode == 1
    assert "ERROR: no matching distribution" in done.stderr
    assert "scripts/install: pip failed" in done.stderr
    assert len(pip_calls(root)) == 1

    stamp(root, "[dev]")
    with (root / "pyproject.toml").open("a", encoding="utf-8") as file:
        file.write("\n# changed\n")
    assert install(root).returncode == 1
    assert len(pip_calls(root)) == 2
    # a failed install leaves the old stamp: the next run tries again
    assert (root / ".venv" / ".citebot-installed").read_text(encoding="utf-8").endswith("[dev]\n")


def test_a_successful_install_prints_nothing_and_is_stamped(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / ".venv" / "bin" / "pip-ok").touch()
    done = install(root, "dev")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")  # no banner
    assert "editable install banner" in (root / ".venv" / "install.log").read_text("utf-8")
    assert len(pip_calls(root)) == 2  # pip upgraded, then citebot installed
    assert install(root).returncode == 0
    assert len(pip_calls(root)) == 2  # the second run: no pip
