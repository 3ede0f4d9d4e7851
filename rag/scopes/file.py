"""SCOPES_FILE: which documents each channel and each person may be answered from.

::

    [scopes]                  # name -> globs relative to DOCS_DIR (rag.scopes.globs)
    public = ["public/**", "*.md"]
    hr = ["hr/**"]

    [channels]                # channel ID (Slack C…/G…, Feishu oc_…) -> a scope name or a list
    C0HR00001 = ["hr", "public"]
    C0PUB0001 = "public"

    [users]                   # user ID (Slack U…/W…, Feishu ou_…) -> scopes of DMs with them
    U0HRLEAD1 = ["hr", "public"]

    [usergroups]              # optional: Slack user group S… -> scopes its members' DMs get
    S0HRTEAM1 = ["hr"]

    [defaults]
    dms = "public"            # DMs of people not listed in [users]; leave out: DMs not enabled
    channels = "public"       # channels not listed; leave out: unlisted channels not enabled

    [follow_ups]              # optional: thread follow-ups on/off per channel
    C0PUB0001 = false

    [drafts]                  # optional: audiences with one of these scopes also see drafts
    scopes = ["policy-team"]

Read once at start (:func:`load_scopes_file`). Anything wrong — TOML syntax, an unknown table
or key, a name that is not an ID, a bad glob, a scope name used but not defined — raises
:class:`ScopesFileError` whose message is one line naming the file, the line and the key, so
the program stops before answering anyone from the wrong documents.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, StrictBool
from pydantic import ValidationError as PydanticValidationError

from rag.scopes.globs import Glob, compile_glob
from rag.scopes.sets import ALL_KEY, ScopeCatalog
from rag.settings import SettingsError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_CHANNEL = re.compile(r"^(?:[CG][A-Z0-9]{2,}|oc_[A-Za-z0-9]+)$")
_USER = re.compile(r"^(?:[UW][A-Z0-9]{2,}|ou_[A-Za-z0-9]+)$")
_USERGROUP = re.compile(r"^S[A-Z0-9]{2,}$")
_RESERVED = frozenset({ALL_KEY, "none"})


class ScopesFileError(SettingsError):
    """SCOPES_FILE cannot be used; the message is one line: ``file:line: [table] key: why``."""


def _checked(pattern: re.Pattern[str], what: str) -> Any:
    def check(value: str) -> str:
        if not pattern.match(value):
            msg = f"{value!r} is not {what}"
            raise ValueError(msg)
        return value

    return AfterValidator(check)


def _scope_name(value: str) -> str:
    if not _NAME.match(value) or value in _RESERVED:
        msg = f"{value!r} is not a scope name (letters, digits, - and _; not 'all' or 'none')"
        raise ValueError(msg)
    return value


def _one_or_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


def _glob(value: str) -> str:
    compile_glob(value)  # raises ValueError with the reason
    return value


ScopeName = Annotated[str, AfterValidator(_scope_name)]
Names = Annotated[tuple[ScopeName, ...], BeforeValidator(_one_or_list)]
ChannelId = Annotated[str, _checked(_CHANNEL, "a channel ID (C…, G… or Feishu oc_…)")]
UserId = Annotated[str, _checked(_USER, "a user ID (U…, W… or Feishu ou_…)")]
UsergroupId = Annotated[str, _checked(_USERGROUP, "a Slack user group ID (S…)")]


class _Defaults(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    dms: Names | None = None
    channels: Names | None = None


class _Drafts(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    scopes: Names = ()


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    scopes: dict[ScopeName, tuple[Annotated[str, AfterValidator(_glob)], ...]]
    channels: dict[ChannelId, Names] = {}
    users: dict[UserId, Names] = {}
    usergroups: dict[UsergroupId, Names] = {}
    defaults: _Defaults = _Defaults()
    follow_ups: dict[ChannelId, StrictBool] = {}
    drafts: _Drafts = _Drafts()


@dataclass(frozen=True, slots=True)
class ScopesFile:
    """A checked scopes file: the catalog of scopes and who gets which."""

    path: Path
    version: str
    """Digest of the file's bytes (``/healthz``): which edition of the file is running."""
    catalog: ScopeCatalog
    channels: Mapping[str, frozenset[str]]
    users: Mapping[str, frozenset[str]]
    usergroups: Mapping[str, frozenset[str]]
    default_dms: frozenset[str] | None
    default_channels: frozenset[str] | None
    follow_ups: Mapping[str, bool]


def _line_of(text: str, table: str, key: str | None) -> int:
    """1-based line of ``key`` in ``[table]`` (else of the table header, else 1)."""
    current, table_line = "", 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        header = re.match(r"^\[\s*([^\]]+?)\s*\]", line)
        if header:
            current = header.group(1).strip("\"'")
            table_line = number if current == table else table_line
            continue
        found = re.match(r"""^(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*=""", line)
        if not found:
            continue
        name = next(group for group in found.groups() if group is not None)
        if key is not None and current == table and name == key:
            return number
        if not current and name == table:  # an inline table at the top level
            table_line = table_line or number
    return table_line or 1


def _fail(path: Path, text: str, location: tuple[Any, ...], why: str) -> ScopesFileError:
    table = str(location[0]) if location else ""
    key = str(location[1]) if len(location) > 1 else None
    where = f"[{table}] {key}" if key is not None else f"[{table}]" if table else "(top level)"
    line = _line_of(text, table, key) if table else 1
    return ScopesFileError(f"{path}:{line}: {where}: {why}")


def _why(error: dict[str, Any]) -> str:
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "extra_forbidden" and len(error["loc"]) > 1 and error["loc"][0] == "drafts":
        return "unknown key ([drafts] has scopes)"
    if error["type"] == "extra_forbidden" and len(error["loc"]) > 1:
        return "unknown key ([defaults] has dms and channels)"
    if error["type"] == "extra_forbidden":
        return (
            "unknown table (known: scopes, channels, users, usergroups, defaults, follow_ups,"
            " drafts)"
        )
    if error["type"] == "missing":
        return "missing; the file needs a [scopes] table"
    return message[:1].lower() + message[1:]


def _undefined(model: _File) -> tuple[tuple[str, ...], str] | None:
    """The first place that names a scope the file does not define, and that name."""
    defined = model.scopes.keys()
    tables: list[tuple[str, Mapping[str, tuple[str, ...] | None]]] = [
        ("channels", model.channels),
        ("users", model.users),
        ("usergroups", model.usergroups),
        ("defaults", {"dms": model.defaults.dms, "channels": model.defaults.channels}),
        ("drafts", {"scopes": model.drafts.scopes}),
    ]
    for table, entries in tables:
        for key, names in entries.items():
            for name in names or ():
                if name not in defined:
                    return (table, key), name
    return None


def _frozen(entries: Mapping[str, tuple[str, ...]]) -> dict[str, frozenset[str]]:
    return {key: frozenset(names) for key, names in entries.items()}


def read_scopes(path: Path | None) -> ScopesFile | None:
    """SCOPES_FILE read and checked when set; ``None`` (everyone sees everything) when unset."""
    return None if path is None else load_scopes_file(path)


def load_scopes_file(path: Path) -> ScopesFile:
    """Read and check SCOPES_FILE; :class:`ScopesFileError` (one line) when it can't be used."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        msg = f"{path}: SCOPES_FILE cannot be read ({error.strerror or error})"
        raise ScopesFileError(msg) from None
    text = raw.decode("utf-8", errors="replace")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        # Python 3.11 puts the position only into the message: "… (at line 3, column 7)".
        where = re.search(r"\(at line (\d+), column \d+\)|\(at end of document\)", str(error))
        line = where.group(1) if where and where.group(1) else len(text.splitlines()) or 1
        why = str(error).replace(where.group(0), "").strip() if where else str(error)
        msg = f"{path}:{line}: not valid TOML: {why}"
        raise ScopesFileError(msg) from None
    try:
        model = _File.model_validate(data)
    except PydanticValidationError as error:
        first = error.errors()[0]
        raise _fail(path, text, tuple(first["loc"]), _why(dict(first))) from None
    undefined = _undefined(model)
    if undefined is not None:
        location, name = undefined
        known = ", ".join(sorted(model.scopes)) or "none"
        why = f"scope {name!r} is not defined in [scopes] (defined: {known})"
        raise _fail(path, text, location, why)
    empty = next((name for name, globs in model.scopes.items() if not globs), None)
    if empty is not None:
        raise _fail(path, text, ("scopes", empty), "has no globs; list at least one")
    definitions: dict[str, tuple[Glob, ...]] = {
        name: tuple(compile_glob(glob) for glob in globs) for name, globs in model.scopes.items()
    }
    defaults = model.defaults
    return ScopesFile(
        path=path,
        version=hashlib.blake2b(raw, digest_size=6).hexdigest(),
        catalog=ScopeCatalog(definitions, drafts=frozenset(model.drafts.scopes)),
        channels=_frozen(model.channels),
        users=_frozen(model.users),
        usergroups=_frozen(model.usergroups),
        default_dms=None if defaults.dms is None else frozenset(defaults.dms),
        default_channels=None if defaults.channels is None else frozenset(defaults.channels),
        follow_ups=dict(model.follow_ups),
    )
