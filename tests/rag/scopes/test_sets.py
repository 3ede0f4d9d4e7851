"""Scope sets and their keys: one key per (names, globs), stale or unknown keys see nothing."""

from __future__ import annotations

import pytest

from rag.scopes.globs import compile_glob
from rag.scopes.sets import ALL_KEY, EVERYTHING, NOTHING, ScopeCatalog, UnknownScope

CATALOG = ScopeCatalog(
    {
        "public": (compile_glob("public/**"), compile_glob("*.md")),
        "hr": (compile_glob("hr/**"),),
    }
)


def test_a_set_allows_what_any_of_its_globs_matches() -> None:
    both = CATALOG.of(["hr", "public"])
    assert both.allows("hr/leave.md")
    assert both.allows("public/pricing.md")
    assert both.allows("readme.md")
    assert not both.allows("finance/budget.md")
    public = CATALOG.of(["public"])
    assert not public.allows("hr/leave.md")


def test_keys_name_the_sorted_scopes_and_their_globs() -> None:
    assert CATALOG.of(["public", "hr"]).key == CATALOG.of(["hr", "public"]).key
    assert CATALOG.of(["hr", "public"]).key.startswith("hr+public@")
    assert CATALOG.of(["hr"]).key != CATALOG.of(["public"]).key
    narrower = ScopeCatalog({"hr": (compile_glob("hr/*"),)})
    assert narrower.of(["hr"]).key != CATALOG.of(["hr"]).key


def test_parse_gives_back_the_set_a_key_names() -> None:
    both = CATALOG.of(["hr", "public"])
    assert CATALOG.parse(both.key) == both
    assert CATALOG.parse(ALL_KEY) is EVERYTHING


@pytest.mark.parametrize("key", ["hr", "finance@00000000", "hr+finance@1", "none@x", ""])
def test_keys_naming_no_scope_today_see_nothing(key: str) -> None:
    assert CATALOG.parse(key) is NOTHING
    assert not NOTHING.allows("readme.md")


def test_a_key_made_under_other_globs_sees_nothing() -> None:
    """After an edit of the file, an old key (an old review ticket's) must not widen."""
    old = ScopeCatalog({"hr": (compile_glob("**"),)}).of(["hr"]).key
    assert CATALOG.parse(old) is NOTHING


def test_unknown_names_are_refused() -> None:
    with pytest.raises(UnknownScope, match=r"'finance' \(known: hr, public\)"):
        CATALOG.of(["finance"])


def test_every_scope_is_the_union_and_without_a_file_everything() -> None:
    assert CATALOG.every_scope().names == {"hr", "public"}
    assert ScopeCatalog().every_scope() is EVERYTHING
    assert EVERYTHING.key == ALL_KEY
