"""Scope globs: '*' stays inside a folder, '**' spans folders, bad patterns are refused."""

from __future__ import annotations

import pytest

from rag.scopes.globs import compile_glob

PATHS = [
    "pricing.md",
    "faq.txt",
    "public/pricing.md",
    "public/2026/plans.md",
    "hr/leave.md",
    "hr/policies/sick/leave.md",
    "hrx/leave.md",
    "finance/faq.md",
    "a/b/c/faq.md",
]


def matched(glob: str) -> list[str]:
    pattern = compile_glob(glob)
    return [path for path in PATHS if pattern.matches(path)]


@pytest.mark.parametrize(
    ("glob", "expected"),
    [
        ("*.md", ["pricing.md"]),
        ("*", ["pricing.md", "faq.txt"]),
        ("hr/**", ["hr/leave.md", "hr/policies/sick/leave.md"]),
        ("hr/*", ["hr/leave.md"]),
        ("hr/*/leave.md", []),
        ("hr/**/leave.md", ["hr/leave.md", "hr/policies/sick/leave.md"]),
        ("**/faq.md", ["finance/faq.md", "a/b/c/faq.md"]),
        ("**/*.md", [p for p in PATHS if p.endswith(".md")]),
        ("**", PATHS),
        ("public/*.md", ["public/pricing.md"]),
        ("public/**/*.md", ["public/pricing.md", "public/2026/plans.md"]),
        ("faq.???", ["faq.txt"]),
        ("hr/leave.md", ["hr/leave.md"]),
        ("HR/**", []),
    ],
)
def test_glob_semantics(glob: str, expected: list[str]) -> None:
    assert matched(glob) == expected


def test_star_never_crosses_a_folder() -> None:
    assert not compile_glob("hr*").matches("hr/leave.md")
    assert not compile_glob("*leave.md").matches("hr/leave.md")


def test_dots_and_regex_characters_are_literal() -> None:
    assert compile_glob("a.b+(c)$.md").matches("a.b+(c)$.md")
    assert not compile_glob("a.md").matches("aXmd")


def test_double_star_at_the_top_matches_the_top_level_too() -> None:
    assert compile_glob("**/faq.txt").matches("faq.txt")


@pytest.mark.parametrize(
    ("glob", "reason"),
    [
        ("", "is empty"),
        ("/hr/**", "starts with '/'"),
        ("hr\\**", "'\\'"),
        ("hr/[ab].md", "only * ? and ** are special"),
        ("{hr,fin}/**", "only * ? and ** are special"),
        ("hr//x.md", "empty folder name"),
        ("hr/", "empty folder name"),
        ("../secret/**", "'..'"),
        ("hr/**.md", "** must be a whole folder"),
        ("a**/b", "** must be a whole folder"),
    ],
)
def test_bad_globs_are_refused_with_the_reason(glob: str, reason: str) -> None:
    with pytest.raises(ValueError, match="glob") as raised:
        compile_glob(glob)
    assert reason in str(raised.value)
