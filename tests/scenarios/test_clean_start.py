"""A clean start logs no warning: the first thing a newcomer reads must not be a false alarm."""

from __future__ import annotations

import logging
import os

import pytest

from tests.fakes.slack_api import FakeSlackApi
from tests.scenarios.harness import bot_env, compose


async def test_a_clean_slack_start_logs_no_warning(
    slack_api: FakeSlackApi,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    env = bot_env(slack_api, EMBEDDINGS="none")
    # As `python -m bot` runs: the settings are in the process environment too, where Bolt
    # looks for SLACK_BOT_TOKEN on its own ("`token` will be unused").
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    caplog.set_level(logging.DEBUG)
    async with compose(env) as served, served.http.get(f"{served.url}/healthz") as response:
        assert response.status == 200
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == []
    assert os.environ["SLACK_BOT_TOKEN"] == env["SLACK_BOT_TOKEN"]  # put back after the start
