"""The facade (``rag/__init__.py``) is what the edges may use: results, settings, built
objects' types and the factories the composition root calls — no store implementations and no
helper that wraps a raw client, so bot cannot build storage plumbing of its own."""

from __future__ import annotations

import inspect

import pytest

import rag


@pytest.mark.parametrize("name", rag.__all__)
def test_the_facade_exports_no_store_implementation(name: str) -> None:
    value = getattr(rag, name)
    home = getattr(value, "__module__", "") or ""
    assert not (inspect.isclass(value) and home.endswith(".stores")), f"{name} from {home}"
    assert name != "guarded"


def test_every_name_the_facade_lists_resolves() -> None:
    for name in rag.__all__:
        assert getattr(rag, name) is not None
