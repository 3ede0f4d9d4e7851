"""The audience rule: a channel's scopes in a channel, the person's in a DM, all in review."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.audience import Audiences
from rag import EVERYTHING, ScopeSet, ScopesFile, load_scopes_file

FILE = """\
[scopes]
public = ["public/**", "*.md"]
hr = ["hr/**"]
finance = ["finance/**"]

[channels]
C0HR00001 = ["hr", "public"]
C0PUB0001 = "public"

[users]
U0HRLEAD1 = ["hr", "public"]

[usergroups]
S0FIN0001 = "finance"

[defaults]
dms = "public"

[follow_ups]
C0PUB0001 = false
"""


class Groups:
    def __init__(self, members: dict[str, set[str]]) -> None:
        self.members = members
        self.asked: list[str] = []

    async def groups_of(self, user: str, groups: frozenset[str]) -> frozenset[str]:
        self.asked.append(user)
        return frozenset(g for g in groups if user in self.members.get(g, set()))


def scopes(tmp_path: Path, text: str = FILE) -> ScopesFile:
    path = tmp_path / "scopes.toml"
    path.write_text(text, encoding="utf-8")
    return load_scopes_file(path)


def names(scope: ScopeSet | None) -> set[str]:
    assert scope is not None
    return set(scope.names)


async def test_without_a_scopes_file_everyone_sees_everything() -> None:
    audiences = Audiences(None, review_channel="C0REVIEW1")
    assert audiences.channel("C0ANY0001") is EVERYTHING
    assert await audiences.direct("U0ANYONE1") is EVERYTHING
    assert audiences.version is None


async def test_a_channel_gets_its_listed_scopes(tmp_path: Path) -> None:
    audiences = Audiences(scopes(tmp_path), review_channel="C0REVIEW1")
    assert names(audiences.channel("C0HR00001")) == {"hr", "public"}
    assert names(audiences.channel("C0PUB0001")) == {"public"}


async def test_an_unlisted_channel_is_not_enabled_without_a_default(tmp_path: Path) -> None:
    assert Audiences(scopes(tmp_path)).channel("C0OTHER01") is None


async def test_an_unlisted_channel_gets_the_default_when_there_is_one(tmp_path: Path) -> None:
    text = FILE.replace('dms = "public"', 'dms = "public"\nchannels = "public"')
    assert names(Audiences(scopes(tmp_path, text)).channel("C0OTHER01")) == {"public"}


async def test_the_review_channel_is_trusted_with_every_scope(tmp_path: Path) -> None:
    audiences = Audiences(scopes(tmp_path), review_channel="C0REVIEW1")
    assert names(audiences.channel("C0REVIEW1")) == {"hr", "public", "finance"}


async def test_a_dm_gets_the_persons_scopes_else_the_default(tmp_path: Path) -> None:
    audiences = Audiences(scopes(tmp_path))
    assert names(await audiences.direct("U0HRLEAD1")) == {"hr", "public"}
    assert names(await audiences.direct("U0SOMEONE")) == {"public"}
    hr_dm = await audiences.place(channel="D0DM00001", user="U0HRLEAD1", is_dm=True)
    assert names(hr_dm) == {"hr", "public"}


async def test_dms_are_not_enabled_for_unlisted_people_without_a_default(tmp_path: Path) -> None:
    audiences = Audiences(scopes(tmp_path, FILE.replace('dms = "public"', "")))
    assert await audiences.direct("U0SOMEONE") is None
    assert names(await audiences.direct("U0HRLEAD1")) == {"hr", "public"}


async def test_user_groups_add_their_scopes_to_dms(tmp_path: Path) -> None:
    groups = Groups({"S0FIN0001": {"U0FINANCE"}})
    audiences = Audiences(scopes(tmp_path), groups=groups)
    assert names(await audiences.direct("U0FINANCE")) == {"public", "finance"}
    assert names(await audiences.direct("U0SOMEONE")) == {"public"}
    no_default = Audiences(scopes(tmp_path, FILE.replace('dms = "public"', "")), groups=groups)
    assert names(await no_default.direct("U0FINANCE")) == {"finance"}


async def test_channels_ignore_user_groups(tmp_path: Path) -> None:
    groups = Groups({"S0FIN0001": {"U0FINANCE"}})
    audiences = Audiences(scopes(tmp_path), groups=groups)
    channel = await audiences.place(channel="C0PUB0001", user="U0FINANCE", is_dm=False)
    assert names(channel) == {"public"}
    assert groups.asked == []


@pytest.mark.parametrize(("channel", "expected"), [("C0PUB0001", False), ("C0HR00001", None)])
async def test_follow_ups_per_channel(tmp_path: Path, channel: str, expected: bool | None) -> None:
    assert Audiences(scopes(tmp_path)).follow_ups(channel) is expected


async def test_the_version_is_the_files(tmp_path: Path) -> None:
    loaded = scopes(tmp_path)
    assert Audiences(loaded).version == loaded.version
