"""Bot settings: the mode follows from what is set; errors name what to set."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import BotSettings
from rag.settings import SettingsError

SLACK = {
    "SLACK_BOT_TOKEN": "xoxb-1-abc",
    "SLACK_SIGNING_SECRET": "s3cr3t-value",
    "REVIEW_CHANNEL": "C0REVIEW",
}


def test_no_bot_token_means_console_with_defaults() -> None:
    settings = BotSettings.from_env({})
    assert settings.mode == "console"
    assert (settings.api_url, settings.port) == ("https://slack.com/api/", 3000)


def test_http_mode_reads_every_slack_setting() -> None:
    settings = BotSettings.from_env(
        {
            **SLACK,
            "SLACK_API_URL": "http://127.0.0.1:9/api",
            "PORT": "8080",
            "REVIEWERS": "U1AB, W2CD",
        }
    )
    assert settings.mode == "http"
    assert settings.api_url == "http://127.0.0.1:9/api/"
    assert settings.port == 8080
    assert settings.reviewers == ("U1AB", "W2CD")


def test_app_token_selects_socket_mode_without_a_signing_secret() -> None:
    env = {**SLACK, "SLACK_APP_TOKEN": "xapp-1-x"}
    del env["SLACK_SIGNING_SECRET"]
    assert BotSettings.from_env(env).mode == "socket"


@pytest.mark.parametrize(
    ("change", "names"),
    [
        ({"SLACK_SIGNING_SECRET": ""}, "SLACK_SIGNING_SECRET"),
        ({"REVIEW_CHANNEL": ""}, "REVIEW_CHANNEL"),
        ({"REVIEW_CHANNEL": "#reviews"}, "REVIEW_CHANNEL='#reviews'"),
        ({"SLACK_BOT_TOKEN": "xoxp-user"}, "SLACK_BOT_TOKEN"),
        ({"SLACK_APP_TOKEN": "xoxb-wrong"}, "SLACK_APP_TOKEN"),
        ({"PORT": "http"}, "PORT='http'"),
        ({"SLACK_API_URL": "slack.com"}, "SLACK_API_URL='slack.com'"),
        ({"REVIEWERS": "alice,U1AB"}, "alice"),
        ({"SLACK_CLIENT_ID": "1", "SLACK_CLIENT_SECRET": "2"}, "SLACK_CLIENT_ID"),
        ({"TOP_K": "0"}, "TOP_K"),
    ],
)
def test_errors_name_the_setting(change: dict[str, str], names: str) -> None:
    with pytest.raises(SettingsError, match=names.replace("(", r"\(")):
        BotSettings.from_env({**SLACK, **change})


def test_repr_never_shows_secrets() -> None:
    text = repr(BotSettings.from_env(SLACK))
    assert "xoxb" not in text
    assert "s3cr3t" not in text


def test_the_metrics_folder_of_several_processes_must_be_a_writable_folder(
    tmp_path: Path,
) -> None:
    assert BotSettings.from_env({}).metrics_dir is None  # one process: its own metrics
    assert BotSettings.from_env({"PROMETHEUS_MULTIPROC_DIR": " "}).metrics_dir is None
    shared = BotSettings.from_env({"PROMETHEUS_MULTIPROC_DIR": str(tmp_path)})
    assert shared.metrics_dir == tmp_path
    missing = tmp_path / "missing"
    with pytest.raises(SettingsError, match=r"PROMETHEUS_MULTIPROC_DIR=.*not a writable folder"):
        BotSettings.from_env({"PROMETHEUS_MULTIPROC_DIR": str(missing)})
