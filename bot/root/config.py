"""The environment, read once and validated: Slack's settings, Feishu's, SCOPES_FILE and
SOURCES_FILE.

Every problem is a :class:`rag.SettingsError` whose message says what is wrong and what to set;
nothing heavy (index, embeddings) is opened here, so a bad setting fails in a moment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.feishu.settings import FeishuSettings
from bot.settings import BotSettings
from rag import ScopesFile, SourcesFile, read_scopes, read_sources


@dataclass(frozen=True)
class Config:
    bot: BotSettings
    """Slack's settings and, in ``bot.rag``, the answer core's."""
    feishu: FeishuSettings | None
    """``None`` when FEISHU_APP_ID is unset."""
    scopes: ScopesFile | None
    """SCOPES_FILE as read at start; ``None``: everyone sees all of DOCS_DIR."""
    sources: SourcesFile | None = None
    """SOURCES_FILE as read at start (its secrets from the environment); ``None``: no sync."""

    @property
    def console(self) -> bool:
        """Neither Slack nor Feishu is configured: the local console chat runs instead."""
        return self.bot.mode == "console" and self.feishu is None

    @property
    def mode(self) -> str:
        """What /healthz reports: ``http``, ``socket``, ``feishu``, ``http+feishu``, ..."""
        if self.bot.bot_token is None:
            return "feishu" if self.feishu is not None else self.bot.mode
        return f"{self.bot.mode}+feishu" if self.feishu is not None else self.bot.mode


def read_config(env: Mapping[str, str]) -> Config:
    """Raises :class:`rag.SettingsError` with one line for the first bad setting."""
    settings = BotSettings.from_env(env)
    feishu = FeishuSettings.from_env(env)
    return Config(
        bot=settings,
        feishu=feishu,
        scopes=read_scopes(settings.rag.scopes_file),
        sources=read_sources(settings.rag.sources_file, env),
    )
