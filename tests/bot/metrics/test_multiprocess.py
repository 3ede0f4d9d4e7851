"""Several bot processes on one host with PROMETHEUS_MULTIPROC_DIR: any one's ``/metrics`` sums
them all. Each process here is a real Python process (prometheus-client picks file-backed
values once, at import, from the environment), counting what a bot counts through the same
objects; the last one renders what its ``/metrics`` would serve."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.metrics.exposition import Metrics
from rag import SettingsError
from tests.scenarios.metrics_scrape import parse

ROOT = Path(__file__).resolve().parents[3]

BOT = """
import asyncio, sys
from pathlib import Path
from bot.metrics.exposition import Metrics
from bot.metrics.gauges import IndexFacts
from bot.questionlog import QuestionLog

folder, passages = Path(sys.argv[1]), int(sys.argv[2])
metrics = Metrics(platforms=["slack"], multiprocess_dir=folder)
metrics.core.model_call("ok")
metrics.core.model_error("http_429", retried=True)
log = QuestionLog("Ev1", "channel", "q", stage="deliver", verdict="answer")
log.timings_ms["total"] = 1500.0
metrics.questions("slack").finished(log)
metrics.watch_index(lambda: IndexFacts(passages, 1))
body, _ = asyncio.run(metrics.render())  # a scrape: sets the gauges first
if len(sys.argv) > 3:
    sys.stdout.write(body.decode())
"""


def bot_process(folder: Path, passages: int, *, scrape: bool = False) -> subprocess.Popen[str]:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(folder), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", BOT, str(folder), str(passages)] + (
        ["scrape"] if scrape else []
    )
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)


def finished(process: subprocess.Popen[str]) -> str:
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 0
    return out


def test_three_processes_counts_are_summed_and_the_scraping_ones_gauges_shown(
    tmp_path: Path,
) -> None:
    for process in [bot_process(tmp_path, 10), bot_process(tmp_path, 20)]:
        finished(process)
    scraped = parse(finished(bot_process(tmp_path, 30, scrape=True)))
    assert scraped.value("citebot_questions_total", platform="slack", outcome="answered") == 3
    assert scraped.value("citebot_question_duration_seconds_count", outcome="answered") == 3
    assert scraped.value("citebot_question_duration_seconds_sum", outcome="answered") == 4.5
    assert scraped.value("citebot_model_calls_total", outcome="ok") == 3
    assert scraped.value("citebot_model_retries_total", kind="http_429") == 3
    assert scraped.value("citebot_index_passages") == 30  # set by the scraping process, last
    assert not any("pid" in sample.labels for sample in scraped.samples)
    assert len(list(tmp_path.glob("counter_*.db"))) == 3


def test_a_folder_named_after_the_library_was_loaded_is_refused(tmp_path: Path) -> None:
    # This test process imported prometheus-client without the variable: its values are in
    # memory, and a /metrics reading only the folder would leave them out.
    with pytest.raises(SettingsError, match="PROMETHEUS_MULTIPROC_DIR"):
        Metrics(multiprocess_dir=tmp_path)


PROBE = """
from bot.root.run import main
code = main()
from prometheus_client import values
print(code, values.ValueClass is values.MutexValue)
"""


def test_a_blank_variable_as_in_env_example_leaves_the_metrics_in_memory(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PROMETHEUS_MULTIPROC_DIR": "", "TOP_K": "x"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == ["2", "True"]  # not file-backed, nothing in the working folder
    assert list(tmp_path.iterdir()) == []
