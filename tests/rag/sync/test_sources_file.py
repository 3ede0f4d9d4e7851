"""SOURCES_FILE: read once, every problem one line naming the file, the source and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.sync.sources_file import SourcesFileError, read_sources

GOOD = """\
[sources.hr-wiki]
kind = "confluence-cloud"
url = "https://acme.atlassian.net/wiki"
spaces = ["HR", "ENG"]
email = "citebot@acme.com"
token_env = "CONFLUENCE_API_TOKEN"

[sources.ops]
kind = "confluence-dc"
url = "https://wiki.acme.internal"
spaces = ["OPS"]
token_env = "CONFLUENCE_PAT"

[sources.handbook]
kind = "feishu-wiki"
spaces = ["7034502641455497244"]
site = "https://acme.feishu.cn"
"""
ENV = {
    "CONFLUENCE_API_TOKEN": "cloud-secret",
    "CONFLUENCE_PAT": "dc-secret",
    "FEISHU_APP_ID": "cli_x",
    "FEISHU_APP_SECRET": "feishu-secret",
    "FEISHU_API_URL": "https://open.larksuite.com",
}


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sources.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_unset_means_no_sources() -> None:
    assert read_sources(None, ENV) is None


def test_each_source_gets_its_settings_and_the_secrets_the_file_names(tmp_path: Path) -> None:
    sources = read_sources(write(tmp_path, GOOD), ENV)

    assert sources is not None
    assert [(s.name, s.kind) for s in sources.sources] == [
        ("hr-wiki", "confluence-cloud"),
        ("ops", "confluence-dc"),
        ("handbook", "feishu-wiki"),
    ]
    assert sources.named("hr-wiki").secret("token_env") == "cloud-secret"
    assert sources.named("ops").secret("token_env") == "dc-secret"
    handbook = sources.named("handbook")
    assert handbook.secret("app_secret_env") == "feishu-secret"
    assert handbook.api_url == "https://open.larksuite.com"  # FEISHU_API_URL: Lark
    assert "secret" not in repr(sources)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[sources.a\n", "not valid TOML"),
        ("[other]\nx = 1\n", "unknown table [other]"),
        ("", "no sources"),
        ('[sources."bad name"]\nkind = "feishu-wiki"\n', "[sources.bad name]: the name must be"),
        ('[sources.x]\nkind = "notion"\n', "[sources.x] kind: 'notion' is not one of"),
        (GOOD.replace('spaces = ["OPS"]\n', ""), "[sources.ops] spaces: field required"),
        (GOOD.replace('email = "citebot@acme.com"', 'emial = "x"'), "[sources.hr-wiki] emial: unknown key; confluence-cloud takes kind, url, spaces, email"),  # noqa: E501
        (GOOD.replace("https://acme.feishu.cn", "acme.feishu.cn"), "[sources.handbook] site"),
        (GOOD.replace('"CONFLUENCE_PAT"', '"CONFLUENCE_PTA"'), "[sources.ops] token_env: the variable CONFLUENCE_PTA is not set"),  # noqa: E501
    ],
)  # fmt: skip
def test_a_bad_file_is_one_line_naming_the_file_the_source_and_the_key(
    tmp_path: Path, text: str, message: str
) -> None:
    path = write(tmp_path, text)

    with pytest.raises(SourcesFileError) as raised:
        read_sources(path, ENV)

    assert message in str(raised.value)
    assert str(raised.value).startswith(f"SOURCES_FILE {path}")
    assert "\n" not in str(raised.value)


def test_a_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(SourcesFileError, match="cannot read it"):
        read_sources(tmp_path / "nope.toml", ENV)


def test_an_unknown_source_name_lists_the_known_ones(tmp_path: Path) -> None:
    sources = read_sources(write(tmp_path, GOOD), ENV)
    assert sources is not None

    with pytest.raises(SourcesFileError, match=r"has: hr-wiki, ops, handbook"):
        sources.named("wiki")
