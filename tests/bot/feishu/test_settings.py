"""FEISHU_* settings: off when unset, complete or one clear error."""

from __future__ import annotations

import pytest

from bot.feishu.settings import FeishuSettings
from rag import SettingsError

BASE = {
    "FEISHU_APP_ID": "cli_a1b2c3d4e5f60718",
    "FEISHU_APP_SECRET": "s3cr3t-app",
    "FEISHU_ENCRYPT_KEY": "s3cr3t-key",
    "FEISHU_VERIFICATION_TOKEN": "s3cr3t-token",
}
REVIEWER = "ou_7d8a6e6df7621556ce0d21922b676706"


def test_feishu_is_off_without_an_app_id() -> None:
    assert FeishuSettings.from_env({}) is None


def test_a_complete_http_config() -> None:
    env = {
        **BASE,
        "FEISHU_API_URL": "https://open.larksuite.com/",
        "FEISHU_REVIEW_CHAT": "oc_a0553eda9014c201e6969b478895c230",
        "FEISHU_REVIEWERS": f"{REVIEWER}, {REVIEWER}",
    }
    config = FeishuSettings.from_env(env)
    assert config is not None
    assert config.api_url == "https://open.larksuite.com"
    assert config.reviewers == (REVIEWER,)
    assert "s3cr3t" not in repr(config)
    assert config.secret("encrypt_key") == "s3cr3t-key"
    assert FeishuSettings.from_env(BASE).api_url == "https://open.feishu.cn"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"FEISHU_ENCRYPT_KEY": ""}, "FEISHU_ENCRYPT_KEY is required in http mode"),
        ({"FEISHU_VERIFICATION_TOKEN": ""}, "FEISHU_VERIFICATION_TOKEN is required"),
        ({"FEISHU_APP_SECRET": ""}, "FEISHU_APP_SECRET is required"),
        ({"FEISHU_APP_ID": "my-app"}, "not an App ID"),
        ({"FEISHU_MODE": "carrier-pigeon"}, "not a mode"),
        ({"FEISHU_API_URL": "open.feishu.cn"}, "not an http"),
        ({"FEISHU_REVIEW_CHAT": "reviewers"}, "not a chat_id"),
        ({"FEISHU_REVIEWERS": "alice"}, "not open_ids: alice"),
    ],
)
def test_a_bad_value_is_one_clear_error(change: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        FeishuSettings.from_env({**BASE, **change})


@pytest.mark.parametrize(
    "app_id", ["cli_x", "cli_A1B2C3D4E5F60718", "a1b2c3d4e5f60718", "cli_1234567"]
)
def test_an_app_id_the_check_refuses_is_one_its_hint_excludes(app_id: str) -> None:
    """'cli_x' was refused with the hint "(cli_…)", which it matches: the hint now says what
    the check wants, and a value shaped as the hint says passes."""
    with pytest.raises(SettingsError) as caught:
        FeishuSettings.from_env({**BASE, "FEISHU_APP_ID": app_id})
    assert "at least 8 lower-case letters or digits" in str(caught.value)
    assert FeishuSettings.from_env({**BASE, "FEISHU_APP_ID": "cli_12345678"}) is not None


def test_the_long_connection_needs_only_the_app_secret() -> None:
    env = {"FEISHU_APP_ID": BASE["FEISHU_APP_ID"], "FEISHU_APP_SECRET": "s", "FEISHU_MODE": "WS"}
    config = FeishuSettings.from_env(env)
    assert config is not None
    assert config.mode == "ws"
    with pytest.raises(SettingsError, match="FEISHU_APP_SECRET is required in ws mode"):
        FeishuSettings.from_env({**env, "FEISHU_APP_SECRET": ""})
