"""SCOPES_FILE: the issue's example loads as written; every mistake stops with file, line, key."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.scopes.file import ScopesFile, ScopesFileError, load_scopes_file
from rag.settings import SettingsError

EXAMPLE = """\
[scopes]                       # name -> globs relative to DOCS_DIR
public = ["public/**", "*.md"]
hr = ["hr/**"]

[channels]                     # channel ID -> one scope name or a list of them
C0HR00001 = ["hr", "public"]
C0PUB0001 = "public"
oc_a1b2c3d4 = "hr"

[users]                        # user ID -> scopes added to DMs with that person
U0HRLEAD1 = ["hr", "public"]
ou_9f8e7d = "hr"

[usergroups]
S0HRTEAM1 = ["hr"]

[defaults]
dms = "public"                 # DMs of people not listed in [users]
channels = "public"            # channels not listed

[follow_ups]                   # optional: thread follow-ups per channel
C0PUB0001 = false
C0HR00001 = true
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scopes.toml"
    path.write_text(text, encoding="utf-8")
    return path


def load(tmp_path: Path, text: str) -> ScopesFile:
    return load_scopes_file(write(tmp_path, text))


def test_the_issue_example_loads(tmp_path: Path) -> None:
    scopes = load(tmp_path, EXAMPLE)
    assert sorted(scopes.catalog.definitions) == ["hr", "public"]
    assert scopes.channels == {
        "C0HR00001": {"hr", "public"},
        "C0PUB0001": {"public"},
        "oc_a1b2c3d4": {"hr"},
    }
    assert scopes.users == {"U0HRLEAD1": {"hr", "public"}, "ou_9f8e7d": {"hr"}}
    assert scopes.usergroups == {"S0HRTEAM1": {"hr"}}
    assert scopes.default_dms == {"public"}
    assert scopes.default_channels == {"public"}
    assert scopes.follow_ups == {"C0PUB0001": False, "C0HR00001": True}
    assert len(scopes.version) == 12


def test_left_out_defaults_mean_not_enabled(tmp_path: Path) -> None:
    scopes = load(tmp_path, '[scopes]\nhr = ["hr/**"]\n')
    assert scopes.default_dms is None
    assert scopes.default_channels is None
    assert scopes.channels == {}
    assert scopes.follow_ups == {}


def test_the_version_changes_with_the_file(tmp_path: Path) -> None:
    first = load(tmp_path, EXAMPLE).version
    assert load(tmp_path, EXAMPLE.replace('hr = ["hr/**"]', 'hr = ["hr/*"]')).version != first


def replaced(old: str, new: str) -> str:
    assert old in EXAMPLE
    return EXAMPLE.replace(old, new, 1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            replaced('C0PUB0001 = "public"', 'C0PUB0001 = "pub"'),
            ":7: [channels] C0PUB0001: scope 'pub' is not defined",
        ),
        (
            replaced('dms = "public"', 'dms = ["public", "finance"]'),
            ":18: [defaults] dms: scope 'finance' is not defined",
        ),
        (
            replaced('S0HRTEAM1 = ["hr"]', 'S0HRTEAM1 = ["hrr"]'),
            ":15: [usergroups] S0HRTEAM1: scope 'hrr'",
        ),
        (
            replaced('hr = ["hr/**"]', 'hr = ["/hr/**"]'),
            ":3: [scopes] hr: glob '/hr/**' starts with '/'",
        ),
        (
            replaced('hr = ["hr/**"]', 'hr = ["hr/**.md"]'),
            ":3: [scopes] hr: glob 'hr/**.md' uses ** inside",
        ),
        (replaced('hr = ["hr/**"]', "hr = []"), ":3: [scopes] hr: has no globs"),
        (
            replaced('hr = ["hr/**"]', 'all = ["hr/**"]'),
            ":3: [scopes] all: 'all' is not a scope name",
        ),
        (replaced("dms =", "dm ="), ":18: [defaults] dm: unknown key"),
        (replaced("[users]", "[people]"), ":10: [people]: unknown table"),
        (
            replaced("C0PUB0001 = false", 'C0PUB0001 = "no"'),
            ":22: [follow_ups] C0PUB0001: input should be a valid boolean",
        ),
        (
            replaced("C0PUB0001 = false", "general = false"),
            ":22: [follow_ups] general: 'general' is not a channel ID",
        ),
        (
            replaced('C0HR00001 = ["hr", "public"]', '"#hr" = ["hr", "public"]'),
            ":6: [channels] #hr: '#hr' is not a channel ID",
        ),
        (
            replaced("U0HRLEAD1", "C0HRLEAD1"),
            ":11: [users] C0HRLEAD1: 'C0HRLEAD1' is not a user ID",
        ),
        (replaced('U0HRLEAD1 = ["hr", "public"]', "U0HRLEAD1 = 3"), ":11: [users] U0HRLEAD1:"),
        ('[channels]\nC0PUB0001 = "public"\n', ":1: [scopes]: missing"),
        (replaced('hr = ["hr/**"]', 'hr = ["hr/**"'), "not valid TOML"),
    ],
)
def test_mistakes_stop_with_file_line_and_key(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ScopesFileError) as raised:
        load_scopes_file(path)
    message = str(raised.value)
    assert message.startswith(f"{path}:")
    assert expected in message
    assert "\n" not in message


def test_a_missing_file_is_a_settings_error(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match=r"scopes\.toml: SCOPES_FILE cannot be read"):
        load_scopes_file(tmp_path / "scopes.toml")


def test_drafts_are_for_the_audiences_of_the_scopes_drafts_names(tmp_path: Path) -> None:
    scopes = load(tmp_path, EXAMPLE + '\n[drafts]\nscopes = ["hr"]\n')
    hr = scopes.catalog.of(["hr"])
    public = scopes.catalog.of(["public"])
    assert hr.drafts
    assert not public.drafts
    assert scopes.catalog.parse(hr.key) == hr
    without = load(tmp_path, EXAMPLE).catalog.of(["hr"])
    assert hr.key != without.key  # answers cached without drafts are not served with them


def test_drafts_naming_an_undefined_scope_stops_with_its_line(tmp_path: Path) -> None:
    with pytest.raises(ScopesFileError, match=r"\[drafts\] scopes: scope 'editors' is not"):
        load(tmp_path, EXAMPLE + '\n[drafts]\nscopes = ["editors"]\n')
