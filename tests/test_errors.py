"""One root: every exception class citebot defines is a :class:`rag.CitebotError`, drawn in
the tree of ``rag/errors.py``'s docstring, and keeps the built-in base callers catch it by."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import bot
import rag
from rag import errors
from rag.cache.answers import CacheUnavailable
from rag.errors import CitebotError
from rag.scopes.file import ScopesFileError
from rag.settings import SettingsError


def _defined_exceptions() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for package in (rag, bot):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if module.name.endswith("__main__"):
                continue  # runs the program when imported
            loaded = importlib.import_module(module.name)
            found += [
                value
                for _, value in inspect.getmembers(loaded, inspect.isclass)
                if issubclass(value, BaseException) and value.__module__ == module.name
            ]
    return found


EXCEPTIONS = _defined_exceptions()


def test_there_are_exceptions_to_check() -> None:
    assert len(EXCEPTIONS) >= 26


@pytest.mark.parametrize("error", EXCEPTIONS, ids=lambda error: error.__qualname__)
def test_every_exception_has_the_one_root_and_is_in_the_tree(error: type[BaseException]) -> None:
    assert issubclass(error, CitebotError)
    assert error.__name__ in (errors.__doc__ or "")


def test_built_in_bases_are_kept() -> None:
    assert issubclass(SettingsError, ValueError)
    assert issubclass(ScopesFileError, SettingsError)
    assert issubclass(CacheUnavailable, RuntimeError)
