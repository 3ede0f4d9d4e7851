"""Every library the code imports is declared in pyproject.toml, so a fresh install has it: the
packages' imports by ``[project] dependencies``, the tests' and benchmarks' by those plus the
``dev`` extra. (``httpx2`` was once imported by tests while only ``openai`` happened to bring
it.)"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from tests.syntax import parse

ROOT = Path(__file__).resolve().parents[1]
OWN = {"bot", "rag", "tests", "bench", "scripts"}
OPTIONAL = {"matplotlib"}
"""Imported inside a function that says how to install it when missing (``calibrate --plot``)."""
SHIPPED_BY = {"Stemmer": "pystemmer"}
"""Lone extension modules that Python 3.11's ``packages_distributions`` cannot map (it keeps
the platform suffix, ``Stemmer.cpython-311-….so``): their distribution, by hand."""


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared(*extras: str) -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in extras:
        requirements += project["optional-dependencies"][extra]
    return {
        _normal(re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0])
        for requirement in requirements
    }


def _imported(*folders: str) -> dict[str, str]:
    """Top-level third-party import names -> one file importing it."""
    found: dict[str, str] = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(parse(path)):
                names: list[str] = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in OWN | OPTIONAL:
                        found.setdefault(top, str(path.relative_to(ROOT)))
    return found


@pytest.mark.parametrize(
    ("folders", "extras"),
    [(("bot", "rag"), ()), (("tests", "bench"), ("dev",))],
    ids=["packages", "tests-and-bench"],
)
def test_every_imported_library_is_declared(
    folders: tuple[str, ...], extras: tuple[str, ...]
) -> None:
    declared = _declared(*extras)
    providers = packages_distributions()
    undeclared = {
        name: where
        for name, where in _imported(*folders).items()
        if not {_normal(dist) for dist in providers.get(name, [SHIPPED_BY.get(name, name)])}
        & declared
    }
    assert undeclared == {}
