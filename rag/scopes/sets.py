"""Scope sets: the documents one audience may be answered from, and the key that names them.

An answer's audience is given a set of scope names (``{"hr", "public"}``); a document belongs to
the set when any glob of any of its scopes matches the document's path. Everything keyed by
who may see what — the answer cache, reviewed answers, rejected drafts, single-flight, review
tickets — is keyed by :attr:`ScopeSet.key`, a plain string:

- ``"all"``: every document (no SCOPES_FILE, and admins at the command line);
- ``"hr+public@3f0c9a1e"``: the sorted names and a digest of their globs. Editing a scope's
  globs changes its key, so an answer built under the old definition (say, before ``hr/**``
  was taken out of ``public``) is never served under the new one;
- ``"none@…"`` style empty sets match nothing (a key that no longer parses, for instance).

:class:`ScopeCatalog` turns names into sets and keys back into sets; it is what the pipeline
holds. The file that defines the scopes is read by :mod:`rag.scopes.file`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from rag.errors import CitebotError
from rag.scopes.globs import Glob

ALL_KEY = "all"
"""The key of the unrestricted set; also the pipeline's default (every document)."""

_KEY_SEPARATOR = "@"
_NAME_SEPARATOR = "+"


@dataclass(frozen=True, slots=True)
class ScopeSet:
    """Named scopes with their globs; ``unrestricted`` admits every document."""

    names: frozenset[str] = frozenset()
    globs: tuple[Glob, ...] = ()
    unrestricted: bool = False
    drafts: bool = False
    """Whether this audience is also answered from draft documents (``[drafts]`` in
    SCOPES_FILE names a scope it has); everyone else, :data:`EVERYTHING` included, is not."""
    key: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", _key(self))

    def allows(self, source: str) -> bool:
        """Whether a document (path relative to DOCS_DIR, ``/``-separated) is in the set."""
        return self.unrestricted or any(glob.matches(source) for glob in self.globs)

    def __str__(self) -> str:
        return ALL_KEY if self.unrestricted else ", ".join(sorted(self.names)) or "(none)"


def _key(scope: ScopeSet) -> str:
    if scope.unrestricted:
        return ALL_KEY
    globs: list[object] = [*sorted(glob.text for glob in scope.globs)]
    if scope.drafts:  # a scope given drafts is another audience: nothing cached crosses
        globs.append({"drafts": True})
    payload = json.dumps(globs).encode("utf-8")
    digest = hashlib.blake2b(payload, digest_size=4).hexdigest()
    names = _NAME_SEPARATOR.join(sorted(scope.names)) or "none"
    return f"{names}{_KEY_SEPARATOR}{digest}"


EVERYTHING = ScopeSet(unrestricted=True)
NOTHING = ScopeSet()


class UnknownScope(CitebotError, ValueError):
    """A scope name that the scopes file does not define."""


@dataclass(frozen=True, slots=True)
class ScopeCatalog:
    """The scopes a file defines, by name; with no file, only :data:`EVERYTHING`."""

    definitions: Mapping[str, tuple[Glob, ...]] = field(default_factory=dict)
    drafts: frozenset[str] = frozenset()
    """The scopes whose audiences also see drafts (``[drafts] scopes``)."""

    def of(self, names: Iterable[str]) -> ScopeSet:
        """The set of ``names``; :class:`UnknownScope` for a name the file doesn't define."""
        chosen = frozenset(names)
        unknown = sorted(chosen - self.definitions.keys())
        if unknown:
            known = ", ".join(sorted(self.definitions)) or "none defined"
            msg = f"unknown scope {', '.join(map(repr, unknown))} (known: {known})"
            raise UnknownScope(msg)
        globs = tuple(glob for name in sorted(chosen) for glob in self.definitions[name])
        return ScopeSet(names=chosen, globs=globs, drafts=bool(chosen & self.drafts))

    def every_scope(self) -> ScopeSet:
        """Every defined scope (REVIEW_CHANNEL); unrestricted when no scope is defined."""
        return self.of(self.definitions) if self.definitions else EVERYTHING

    def parse(self, key: str) -> ScopeSet:
        """The set a key names today; :data:`NOTHING` when it names none (or stale globs)."""
        if key == ALL_KEY:
            return EVERYTHING
        names, separator, _ = key.partition(_KEY_SEPARATOR)
        if not separator or names == "none":
            return NOTHING
        try:
            scope = self.of(names.split(_NAME_SEPARATOR))
        except UnknownScope:
            return NOTHING
        return scope if scope.key == key else NOTHING
