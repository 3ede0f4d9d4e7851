"""SOURCES_FILE: the wikis whose documents are synced into DOCS_DIR.

::

    [sources.hr-wiki]                        # the source's name: [A-Za-z0-9_-]
    kind = "confluence-cloud"                # confluence-cloud | confluence-dc | feishu-wiki
    url = "https://acme.atlassian.net/wiki"
    spaces = ["HR", "ENG"]                   # space keys
    email = "citebot@acme.com"
    token_env = "CONFLUENCE_API_TOKEN"       # the NAME of the variable holding the API token

    [sources.ops]
    kind = "confluence-dc"
    url = "https://wiki.acme.internal"
    spaces = ["OPS"]
    token_env = "CONFLUENCE_PAT"             # a personal access token (bearer)

    [sources.handbook]
    kind = "feishu-wiki"
    spaces = ["7034502641455497244"]         # wiki space_id (知识库设置 or the API)
    site = "https://acme.feishu.cn"          # where people open documents (links in answers)
    # app_id_env / app_secret_env: default FEISHU_APP_ID / FEISHU_APP_SECRET (the bot's app)
    # api_url: default FEISHU_API_URL, else https://open.feishu.cn

Secrets never sit in the file: a key ending in ``_env`` names the environment variable that
holds one, read once when the file is loaded. Everything is checked then — TOML syntax, an
unknown kind or key, a missing setting, a variable that is not set — and a problem is a
:class:`SourcesFileError` whose message is one line naming the file, the source and the key.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rag.settings import SettingsError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
DEFAULT_FEISHU_API = "https://open.feishu.cn"


class SourcesFileError(SettingsError):
    """SOURCES_FILE cannot be used; one line: ``SOURCES_FILE x.toml: [sources.NAME] key: why``."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ConfluenceCloud(_Strict):
    kind: Literal["confluence-cloud"]
    url: str = Field(pattern=r"^https?://")
    spaces: tuple[str, ...] = Field(min_length=1)
    email: str = Field(min_length=3)
    token_env: str


class ConfluenceDataCenter(_Strict):
    kind: Literal["confluence-dc"]
    url: str = Field(pattern=r"^https?://")
    spaces: tuple[str, ...] = Field(min_length=1)
    token_env: str


class FeishuWiki(_Strict):
    kind: Literal["feishu-wiki"]
    spaces: tuple[str, ...] = Field(min_length=1)
    site: str = Field(pattern=r"^https?://")
    app_id_env: str = "FEISHU_APP_ID"
    app_secret_env: str = "FEISHU_APP_SECRET"
    api_url: str | None = Field(default=None, pattern=r"^https?://")


KINDS: dict[str, type[_Strict]] = {
    "confluence-cloud": ConfluenceCloud,
    "confluence-dc": ConfluenceDataCenter,
    "feishu-wiki": FeishuWiki,
}
SourceSettings = ConfluenceCloud | ConfluenceDataCenter | FeishuWiki


@dataclass(frozen=True)
class SourceConfig:
    name: str
    settings: SourceSettings
    secrets: Mapping[str, str]
    """``token_env`` -> the token itself, and so on (kept out of ``repr``)."""
    api_url: str = ""
    """Feishu's Open API base (FEISHU_API_URL, for Lark) when the file names none."""

    @property
    def kind(self) -> str:
        return self.settings.kind

    def secret(self, key: str) -> str:
        return self.secrets[key]

    def __repr__(self) -> str:
        return f"SourceConfig(name={self.name!r}, kind={self.kind!r})"


@dataclass(frozen=True)
class SourcesFile:
    path: Path
    sources: tuple[SourceConfig, ...]

    def named(self, name: str) -> SourceConfig:
        for source in self.sources:
            if source.name == name:
                return source
        known = ", ".join(source.name for source in self.sources)
        msg = f"no source named {name!r} in SOURCES_FILE {self.path} (it has: {known})"
        raise SourcesFileError(msg)


def read_sources(path: Path | None, env: Mapping[str, str]) -> SourcesFile | None:
    """SOURCES_FILE as validated sources, their secrets read from ``env``; ``None`` unset."""
    if path is None:
        return None
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        msg = f"SOURCES_FILE {path}: cannot read it ({error.strerror}); fix the path or unset it"
        raise SourcesFileError(msg) from error
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        msg = f"SOURCES_FILE {path}: not valid TOML ({error})"
        raise SourcesFileError(msg) from error
    unknown = sorted(set(data) - {"sources"})
    if unknown:
        msg = f"SOURCES_FILE {path}: unknown table [{unknown[0]}]; only [sources.NAME] tables"
        raise SourcesFileError(msg)
    tables = data.get("sources")
    if not isinstance(tables, dict) or not tables:
        msg = f"SOURCES_FILE {path}: no sources; add a [sources.NAME] table (guide/sources.md)"
        raise SourcesFileError(msg)
    return SourcesFile(
        Path(path), tuple(_source(path, name, table, env) for name, table in tables.items())
    )


def _source(path: Path, name: str, table: Any, env: Mapping[str, str]) -> SourceConfig:
    where = f"SOURCES_FILE {path}: [sources.{name}]"
    if not _NAME.match(name):
        msg = f"{where}: the name must be letters, digits, - and _"
        raise SourcesFileError(msg)
    if not isinstance(table, dict):
        msg = f"{where}: must be a table of settings"
        raise SourcesFileError(msg)
    model = KINDS.get(str(table.get("kind", "")))
    if model is None:
        msg = f"{where} kind: {table.get('kind')!r} is not one of {', '.join(KINDS)}"
        raise SourcesFileError(msg)
    try:
        settings: Any = model.model_validate(table)
    except ValidationError as error:
        # A misspelt key explains the "field required" that comes with it: name it first.
        first = min(error.errors(), key=lambda e: e["type"] != "extra_forbidden")
        key = ".".join(str(part) for part in first["loc"]) or "kind"
        why = first["msg"].lower()
        if first["type"] == "extra_forbidden":
            why = f"unknown key; {table['kind']} takes {', '.join(model.model_fields)}"
        msg = f"{where} {key}: {why}"
        raise SourcesFileError(msg) from None
    secrets = {}
    for key, variable in settings.model_dump().items():
        if key.endswith("_env"):
            value = env.get(variable, "").strip()
            if not value:
                msg = f"{where} {key}: the variable {variable} is not set; set it or name another"
                raise SourcesFileError(msg)
            secrets[key] = value
    return SourceConfig(
        name, settings, secrets, api_url=env.get("FEISHU_API_URL", "").strip() or DEFAULT_FEISHU_API
    )
