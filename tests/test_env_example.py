""".env.example is the newcomer's list of settings: each name in it is one the bot reads, and
each setting the bot reads is in it (a typo there would be silently ignored)."""

from __future__ import annotations

from pathlib import Path

from dotenv import dotenv_values
from pydantic_settings import BaseSettings

from bot.feishu.settings import FeishuSettings
from bot.settings import BotSettings
from rag.settings import Settings

EXAMPLE = Path(__file__).resolve().parents[1] / ".env.example"


def _names(settings: type[BaseSettings]) -> set[str]:
    """The environment names a settings class reads as settings. Left out: its nested
    settings (read apart) and the names read only to be refused (``exclude``: SLACK_CLIENT_ID
    would switch Bolt to OAuth), which .env.example must not suggest."""
    names = set()
    for field, info in settings.model_fields.items():
        factory = info.default_factory
        nested = isinstance(factory, type) and issubclass(factory, BaseSettings)
        if info.exclude or nested:
            continue
        alias = info.validation_alias
        names.add(alias if isinstance(alias, str) else field.upper())
    return names


def test_env_example_names_exactly_the_settings_that_are_read() -> None:
    read = _names(Settings) | _names(BotSettings) | _names(FeishuSettings)
    written = set(dotenv_values(EXAMPLE))
    assert written - read == set(), "in .env.example but read by nothing"
    assert read - written == set(), "read but not in .env.example"


def test_env_example_as_written_is_valid_settings() -> None:
    values = {name: value or "" for name, value in dotenv_values(EXAMPLE).items()}
    settings = Settings.from_env(values)
    assert settings.checker_model_judge is False  # the judge stays off by default
    assert settings.chat_model_mode == "extractive"  # no LLM in the example: offline answers
