"""Every boolean setting reads one grammar: 1/true/yes/on, 0/false/no/off (any case); anything
else stops start-up with one line naming it.

The list of boolean settings is derived from the settings classes ``python -m bot`` reads, so a
new boolean setting is covered without touching this file.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic_settings import BaseSettings

from bot.feishu.settings import FeishuSettings
from bot.root.config import Config, read_config
from bot.settings import BotSettings
from rag.settings import Settings, SettingsError

# What makes each class's flags readable at all: the judge needs a chat model; Feishu's settings
# are read only when FEISHU_APP_ID is set (long connection: the secret alone).
BASE = {
    "LLM_BASE_URL": "http://127.0.0.1:9/v1",
    "LLM_MODEL": "m",
    "FEISHU_APP_ID": "cli_a1b2c3d4e5f6",
    "FEISHU_APP_SECRET": "s",
    "FEISHU_MODE": "ws",
}

Read = Callable[[Config], object]

SETTINGS: dict[type[BaseSettings], Read] = {
    Settings: lambda config: config.bot.rag,
    BotSettings: lambda config: config.bot,
    FeishuSettings: lambda config: config.feishu,
}


def _env_name(cls: type[BaseSettings], field: str) -> str:
    alias = cls.model_fields[field].validation_alias
    return alias if isinstance(alias, str) else field.upper()


def _reader(owner: Read, field: str) -> Read:
    return lambda config: getattr(owner(config), field)


def boolean_settings() -> list[tuple[str, Read]]:
    return [
        (_env_name(cls, field), _reader(owner, field))
        for cls, owner in SETTINGS.items()
        for field, info in cls.model_fields.items()
        if info.annotation is bool
    ]


FLAGS = boolean_settings()


def test_the_known_flags_are_found() -> None:
    names = {name for name, _ in FLAGS}
    assert {"CHECKER_MODEL_JUDGE", "LOG_QUESTIONS", "RECORD_QUESTIONS", "FOLLOW_UPS"} <= names


@pytest.mark.parametrize(("name", "read"), FLAGS, ids=[name for name, _ in FLAGS])
@pytest.mark.parametrize(
    ("raw", "expected"),
    [("on", True), ("off", False), ("ON", True), ("Yes", True), ("0", False), (" true ", True)],
)
def test_flag_reads_on_and_off(name: str, read: Read, raw: str, expected: bool) -> None:
    assert read(read_config({**BASE, name: raw})) is expected


@pytest.mark.parametrize(("name", "read"), FLAGS, ids=[name for name, _ in FLAGS])
def test_anything_else_stops_start_up_naming_the_setting(name: str, read: Read) -> None:
    with pytest.raises(SettingsError) as raised:
        read_config({**BASE, name: "maybe"})
    message = str(raised.value)
    assert message.startswith(f"{name}='maybe'")
    assert "\n" not in message
