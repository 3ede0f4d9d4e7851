"""``--scope NAME`` for admins: see what an audience with that scope of SCOPES_FILE would see."""

from __future__ import annotations

import argparse

from rag.scopes.file import ScopesFile, read_scopes
from rag.scopes.sets import EVERYTHING, ScopeSet
from rag.settings import Settings, SettingsError


def add_scope_argument(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--scope",
        action="append",
        metavar="NAME",
        help=f"{what} (repeat for several scopes); default: every document",
    )


def chosen_scope(settings: Settings, names: list[str] | None) -> tuple[ScopesFile | None, ScopeSet]:
    """SCOPES_FILE (read even without ``--scope``: a bad file is reported) and the set named.

    Raises :class:`SettingsError` for a bad file or ``--scope`` without one, and
    :class:`rag.scopes.sets.UnknownScope` for a name the file does not define.
    """
    scopes = read_scopes(settings.scopes_file)
    if not names:
        return scopes, EVERYTHING
    if scopes is None:
        msg = "--scope needs SCOPES_FILE: set it to the scopes file (guide/scopes.md)"
        raise SettingsError(msg)
    return scopes, scopes.catalog.of(names)
