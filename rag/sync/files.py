"""Synced documents as files under DOCS_DIR: stable paths, front matter, atomic writes.

    DOCS_DIR/confluence/<SPACE>/<page title>.md
    DOCS_DIR/feishu/<space name>/<parent titles…>/<node title>.md

Each file starts with front matter the loader reads — ``title`` and ``url`` (the passage's
link: citation buttons open the page) — plus ``modified`` and ``source``, then the title as a
level-1 heading and the page's Markdown. A file is written beside its final name (hidden, so a
scan never reads it half-written) and renamed over it. Names keep any script (Chinese titles
stay Chinese); only what a file system or the loader cannot take is replaced.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

from rag.sync.source import Document

MAX_NAME_CHARS = 120
_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]+')
_NEEDS_QUOTES = re.compile(
    r"""^[\s\-?:,\[\]{}#&*!|>'"%@`]|: |\s#|[\n\r\t]|\s$|^(?:true|false|yes|no|on|off|null|~)$"""
    r"|^[-+.\d]",
    re.IGNORECASE,
)
"""What YAML would read as something else than this text: indicators, ``: ``, booleans,
numbers and dates (a title "2024" or a time stays a string)."""


def safe_name(text: str, fallback: str) -> str:
    """One path segment: unsafe characters as ``-``, no leading dot (hidden files are not
    read), at most :data:`MAX_NAME_CHARS` characters."""
    name = _UNSAFE.sub("-", text).strip().lstrip(".~$").strip()
    name = name[:MAX_NAME_CHARS].rstrip()
    return name or fallback


def document_path(kind: str, document: Document, *, suffix: str = "") -> str:
    """``kind/place…/title.md`` relative to DOCS_DIR; ``suffix`` tells two same-titled apart."""
    folders = [safe_name(part, "untitled") for part in document.place]
    stem = safe_name(document.title, document.id) + suffix
    return "/".join([kind, *folders, f"{stem}.md"])


def render(document: Document, source: str) -> str:
    meta = {
        "title": document.title,
        "url": document.url,
        "modified": document.modified,
        "source": source,
    }
    lines = ["---", *(f"{key}: {_scalar(value)}" for key, value in meta.items()), "---", ""]
    return "\n".join(lines) + f"# {document.title}\n\n{document.markdown.strip()}\n"


def _scalar(value: str) -> str:
    """The value as YAML: plain when it is safe to, else a JSON string (valid YAML too)."""
    return json.dumps(value, ensure_ascii=False) if _NEEDS_QUOTES.search(value) else value


def write(docs_dir: Path, relative: str, text: str) -> None:
    target = docs_dir / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".sync-", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def remove(docs_dir: Path, relative: str) -> None:
    """Delete the file and the folders it leaves empty (up to DOCS_DIR/<kind>)."""
    target = docs_dir / relative
    target.unlink(missing_ok=True)
    folder = target.parent
    stop = docs_dir / Path(relative).parts[0]
    while folder != stop and folder.is_relative_to(stop):
        try:
            folder.rmdir()
        except OSError:
            return  # not empty (or gone): the rest stays
        folder = folder.parent
