"""Start-up benchmark (not a test): how long ``python -m bot`` takes to report a bad setting.

Runs ``python -m bot`` (or ``python -m rag ask``) with ``TOP_K=x`` several times, in an empty
directory (no ``.env``), and prints the median wall-clock seconds to exit and the exit codes.
A typo in ``.env`` should be reported within a second, before numpy, jieba or the chat model
are loaded.

    .venv/bin/python -m bench.startup                  # python -m bot, 5 runs
    .venv/bin/python -m bench.startup --runs 9 --command rag
    .venv/bin/python -m bench.startup --root ../main      # another checkout, same interpreter
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {"bot": ["-m", "bot"], "rag": ["-m", "rag", "ask", "hello"]}
BAD = {"TOP_K": "x"}


def run_once(argv: list[str], cwd: Path, root: Path) -> tuple[float, int, str]:
    env = {**os.environ, **BAD, "PYTHONPATH": str(root)}
    for name in ("SLACK_BOT_TOKEN", "FEISHU_APP_ID"):
        env.pop(name, None)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    return time.perf_counter() - started, done.returncode, done.stderr.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--command", choices=sorted(COMMANDS), default="bot")
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the checkout to start (e.g. another worktree)"
    )
    args = parser.parse_args()
    argv = COMMANDS[args.command]
    with tempfile.TemporaryDirectory() as empty:
        runs = [run_once(argv, Path(empty), args.root) for _ in range(args.runs)]
    seconds = [run[0] for run in runs]
    codes = sorted({run[1] for run in runs})
    print(f"python {' '.join(argv)} with {BAD}: {runs[-1][2]}")
    print(
        f"runs {len(runs)}  median {statistics.median(seconds):.2f} s  "
        f"min {min(seconds):.2f} s  max {max(seconds):.2f} s  exit codes {codes}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
