"""Fixtures for syncing against the fake wikis: folders, a SOURCES_FILE, waits recorded."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rag.http.retry import HttpRetry
from rag.sync.run import Summary
from rag.sync.sources_file import SourcesFile, read_sources
from rag.sync.sync_all import sync_sources
from tests.fakes import confluence_api, feishu_wiki
from tests.fakes.confluence_api import FakeConfluence
from tests.fakes.feishu_wiki import FakeFeishuWiki


@dataclass
class Waits:
    seconds: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


def secrets_env() -> dict[str, str]:
    return {
        "CONFLUENCE_API_TOKEN": confluence_api.API_TOKEN,
        "CONFLUENCE_PAT": confluence_api.PAT,
        "FEISHU_APP_ID": feishu_wiki.APP_ID,
        "FEISHU_APP_SECRET": feishu_wiki.APP_SECRET,
    }


def sources_toml(
    confluence: FakeConfluence | None = None,
    feishu: FakeFeishuWiki | None = None,
    *,
    spaces: tuple[str, ...] = ("HR",),
    feishu_spaces: tuple[str, ...] = (),
    data_center: bool = False,
) -> str:
    parts = []
    quoted = ", ".join(f'"{s}"' for s in spaces)
    if confluence is not None and not data_center:
        parts.append(
            f'[sources.wiki]\nkind = "confluence-cloud"\nurl = "{confluence.cloud_url}"\n'
            f'spaces = [{quoted}]\nemail = "{confluence_api.EMAIL}"\n'
            'token_env = "CONFLUENCE_API_TOKEN"\n'
        )
    if confluence is not None and data_center:
        parts.append(
            f'[sources.wiki]\nkind = "confluence-dc"\nurl = "{confluence.url}"\n'
            f'spaces = [{quoted}]\ntoken_env = "CONFLUENCE_PAT"\n'
        )
    if feishu is not None:
        listed = ", ".join(f'"{s}"' for s in feishu_spaces)
        parts.append(
            f'[sources.handbook]\nkind = "feishu-wiki"\nspaces = [{listed}]\n'
            f'site = "https://acme.feishu.cn"\napi_url = "{feishu.url}"\n'
        )
    return "\n".join(parts)


@dataclass
class Syncer:
    docs: Path
    index: Path
    waits: Waits
    file: Path

    def sources(self, text: str, env: dict[str, str] | None = None) -> SourcesFile:
        self.file.write_text(text, encoding="utf-8")
        sources = read_sources(self.file, env or secrets_env())
        assert sources is not None
        return sources

    async def sync(self, text: str, env: dict[str, str] | None = None) -> list[Summary]:
        return await sync_sources(
            self.sources(text, env),
            docs_dir=self.docs,
            index_dir=self.index,
            retry=HttpRetry(sleep=self.waits),
        )

    def files(self) -> list[str]:
        return sorted(p.relative_to(self.docs).as_posix() for p in self.docs.rglob("*.md"))

    def read(self, relative: str) -> str:
        return (self.docs / relative).read_text(encoding="utf-8")


@pytest.fixture
def syncer(tmp_path: Path) -> Syncer:
    docs = tmp_path / "docs"
    docs.mkdir()
    return Syncer(docs, tmp_path / "index", Waits(), tmp_path / "sources.toml")


@pytest.fixture
async def confluence() -> AsyncIterator[FakeConfluence]:
    async with FakeConfluence() as fake:
        yield fake


@pytest.fixture
async def feishu() -> AsyncIterator[FakeFeishuWiki]:
    async with FakeFeishuWiki() as fake:
        yield fake
