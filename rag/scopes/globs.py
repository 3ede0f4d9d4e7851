"""Path globs of the scopes file, with one meaning everywhere (not :mod:`fnmatch`'s).

A glob matches a document's path relative to DOCS_DIR, ``/``-separated (``Chunk.source``):

- ``*`` matches any run of characters inside one path segment: it never crosses a ``/``,
  so ``*.md`` is the top level only;
- ``?`` matches one character other than ``/``;
- ``**`` as a whole segment matches any number of folders: ``hr/**`` is everything under
  ``hr/``, ``**/faq.md`` a ``faq.md`` at any depth (the top level included), ``**`` everything;
- every other character matches itself; matching is case-sensitive, like the file system.

:mod:`fnmatch` lets ``*`` cross ``/`` and ``pathlib``'s ``match`` anchors at the right-hand end,
so a scope written for one of them means something else to the other. Patterns that could not
mean what they seem are refused when the file is read (:func:`compile_glob` raises
``ValueError`` with the reason): absolute paths, ``..``, backslashes, ``**`` inside a segment,
and character classes or braces (``[`` ``]`` ``{`` ``}``), which this syntax does not have.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_UNSUPPORTED = frozenset("[]{}")


def _segment(segment: str) -> str:
    """Regex for one segment without ``/``: ``*`` and ``?`` stay inside the segment."""
    return "".join(
        "[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch) for ch in segment
    )


def _problem(glob: str) -> str | None:
    if not glob:
        return "is empty"
    if glob.startswith("/"):
        return "starts with '/'; write it relative to DOCS_DIR"
    if "\\" in glob:
        return "contains '\\'; use '/' between folders"
    if found := sorted(_UNSUPPORTED.intersection(glob)):
        return f"contains {' '.join(found)}; only * ? and ** are special"
    segments = glob.split("/")
    if "" in segments:
        return "has an empty folder name ('//' or a trailing '/'); write 'folder/**'"
    if any(segment in {".", ".."} for segment in segments):
        return "contains '.' or '..' as a folder; write the path from DOCS_DIR"
    if any("**" in segment and segment != "**" for segment in segments):
        return "uses ** inside a name; ** must be a whole folder ('hr/**', '**/faq.md')"
    return None


@dataclass(frozen=True, slots=True)
class Glob:
    """One compiled glob; ``matches(path)`` is true when it matches the whole path."""

    text: str
    _regex: re.Pattern[str]

    def matches(self, path: str) -> bool:
        return self._regex.fullmatch(path) is not None

    def __str__(self) -> str:
        return self.text


def compile_glob(glob: str) -> Glob:
    """The glob as a matcher; ``ValueError`` saying why when it is not a usable pattern."""
    problem = _problem(glob)
    if problem is not None:
        msg = f"glob {glob!r} {problem}"
        raise ValueError(msg)
    segments = glob.split("/")
    parts: list[str] = []
    for position, segment in enumerate(segments):
        last = position == len(segments) - 1
        if segment == "**":
            # Any number of whole folders; at the end, anything below (at least one name).
            parts.append(".+" if last else "(?:[^/]+/)*")
        else:
            parts.append(_segment(segment) + ("" if last else "/"))
    return Glob(glob, re.compile("".join(parts)))
