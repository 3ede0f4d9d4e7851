"""DOCS_DIR -> SourceDocuments: every supported file as Markdown-flavoured text, or a reason.

Organisations keep policies in whatever their tools export: Markdown, plain text in UTF-8 or
GBK, HTML pages saved from an intranet, PDFs and Word files. Each becomes text with headings as
``#`` lines so one splitter handles them all. A folder always contains something odd (a scanned
PDF, a half-copied DOCX, a PNG); such a file becomes a :class:`Skipped` with a short reason a
person can act on, and never stops the rest from loading.

Discovery is deterministic (sorted by relative path), skips hidden files and folders and Office
lock files (``~$…``) — counted among the skipped, a hidden folder with the files it holds, so
the counts add up to the folder, but not warned about — and follows directory symlinks at most
once per real directory so a link back to a parent cannot loop. Files are read only when they
are regular files no larger than :data:`MAX_FILE_BYTES`, so a FIFO cannot hang ingestion and a
stray video cannot exhaust memory.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from rag.ingest.documents import DocumentError, SourceDocument
from rag.ingest.encodings import UndecodableText, decode_text
from rag.ingest.formats import docx_to_text, html_to_text, normalise_newlines, pdf_to_text
from rag.ingest.lifecycle import modified, read_lifecycle
from rag.ingest.markdown import about, read_markdown, split_front_matter

logger = logging.getLogger(__name__)

MAX_FILE_BYTES = 20 * 1024 * 1024
"""Larger files are skipped: policy documents are far smaller; 20 MB of PDF is a scan or a book."""

MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdx"})
TEXT_SUFFIXES = MARKDOWN_SUFFIXES | {".txt"}
HTML_SUFFIXES = frozenset({".html", ".htm"})
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | HTML_SUFFIXES | {".pdf", ".docx"}


@dataclass(frozen=True)
class Skipped:
    path: str
    """Relative to DOCS_DIR, POSIX separators."""
    reason: str
    files: int = 1
    """Files it stands for: a hidden folder is one entry for every file under it."""


HIDDEN_FOLDER = "hidden folder"
HIDDEN_FILE = "hidden file"
LOCK_FILE = "Office lock file"


@dataclass(frozen=True)
class LoadedFile:
    document: SourceDocument | None
    skipped: Skipped | None


def discover(docs_dir: Path) -> list[Path]:
    """Every visible file under ``docs_dir`` (supported or not), sorted by relative path."""
    return _walk(Path(docs_dir))[0]


def walk(docs_dir: Path) -> tuple[list[Path], list[Skipped]]:
    """:func:`discover`'s files, and what the walk itself passed over: hidden files and folders
    (with how many files each holds), Office lock files, unreadable folders, symlink aliases."""
    return _walk(Path(docs_dir))


def load_folder(docs_dir: Path) -> tuple[list[SourceDocument], list[Skipped]]:
    """Load every file; the unloadable ones come back as Skipped and are logged once each."""
    root = Path(docs_dir)
    paths, skipped = _walk(root)
    documents: list[SourceDocument] = []
    for path in paths:
        loaded = load_path(path, root)
        if loaded.document is not None:
            documents.append(loaded.document)
        if loaded.skipped is not None:
            skipped.append(loaded.skipped)
    skipped.sort(key=lambda item: item.path)
    for item in skipped:
        if not hidden(item):  # hidden on purpose (.git, .github): counted, not warned about
            logger.warning("skipped %s: %s", item.path, item.reason)
    return documents, skipped


def hidden(item: Skipped) -> bool:
    return item.reason in (HIDDEN_FOLDER, HIDDEN_FILE, LOCK_FILE)


def load_path(path: Path, docs_dir: Path) -> LoadedFile:
    """Like :func:`load_file`, but a failure is a value instead of an exception."""
    try:
        return LoadedFile(load_file(path, docs_dir), None)
    except DocumentError as error:
        return LoadedFile(None, Skipped(_relative(path, docs_dir), error.reason))


def load_file(path: Path, docs_dir: Path) -> SourceDocument:
    """One file as a SourceDocument; raises DocumentError with the reason it cannot be."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        msg = f"unsupported file type {suffix or '(no extension)'}"
        raise DocumentError(msg)
    data = _read(path)
    file_time = modified(path)
    meta: dict[str, str] = {}
    if suffix in MARKDOWN_SUFFIXES:
        meta, text = read_markdown(normalise_newlines(_decode(data)))
    elif suffix in TEXT_SUFFIXES:
        meta, text = split_front_matter(normalise_newlines(_decode(data)))
    elif suffix in HTML_SUFFIXES:
        meta, text = html_to_text(normalise_newlines(_decode(data)))
    elif suffix == ".pdf":
        meta, text = pdf_to_text(data)
    else:
        meta, text = docx_to_text(data)
    if not text.strip():
        scanned = " (a scanned PDF has images, not text)" if suffix == ".pdf" else ""
        msg = f"no visible text{scanned}"
        raise DocumentError(msg)
    title = meta.get("title") or _first_heading(text) or path.stem
    return SourceDocument(
        source=_relative(path, docs_dir),
        text=text,
        title=title,
        link=meta.get("url") or None,
        about=about(meta),
        lifecycle=read_lifecycle(meta, text, title=title, file_time=file_time),
    )


# --- discovery ---------------------------------------------------------------------------


def _walk(root: Path) -> tuple[list[Path], list[Skipped]]:
    if not root.exists():
        msg = f"DOCS_DIR {root} does not exist; set DOCS_DIR to the folder holding your documents"
        raise FileNotFoundError(msg)
    if not root.is_dir():
        msg = f"DOCS_DIR {root} is not a folder; set DOCS_DIR to the folder holding your documents"
        raise NotADirectoryError(msg)
    files: list[Path] = []
    skipped: list[Skipped] = []
    visited: set[str] = set()
    linked = False
    pending = [root]
    while pending:
        folder = pending.pop()
        real = os.path.realpath(folder)
        if real in visited:
            continue  # a symlink to a folder already read: following it again would loop
        visited.add(real)
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name, reverse=True)
        except OSError as error:
            skipped.append(Skipped(_relative(folder, root), _os_reason(error)))
            continue
        for entry in entries:
            path = Path(entry.path)
            linked = linked or entry.is_symlink()
            if entry.name.startswith((".", "~$")):
                skipped.append(_passed_over(entry, _relative(path, root)))
                continue  # hidden files, VCS folders, Office lock files: counted, not read
            if _is_dir(entry):
                pending.append(path)
            else:
                files.append(path)
    files.sort(key=lambda path: _relative(path, root))
    if not linked:  # only a symbolic link makes a file reachable twice: no need to resolve each
        return files, skipped
    return _without_aliases(files, root, skipped), skipped


def _passed_over(entry: os.DirEntry[str], name: str) -> Skipped:
    if entry.name.startswith("~$"):
        return Skipped(name, LOCK_FILE)
    if not _is_dir(entry):
        return Skipped(name, HIDDEN_FILE)
    return Skipped(name, HIDDEN_FOLDER, files=_count_files(entry.path))


def _count_files(folder: str) -> int:
    """Files under a hidden folder, for the count only (symlinks not followed: no loops)."""
    count = 0
    for _, _, names in os.walk(folder):
        count += len(names)
    return count


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:
        return False


def _without_aliases(files: list[Path], root: Path, skipped: list[Skipped]) -> list[Path]:
    # A file reachable twice through symlinks would be indexed twice and cited as two sources.
    first: dict[str, str] = {}
    unique: list[Path] = []
    for path in files:
        real, name = os.path.realpath(path), _relative(path, root)
        if real in first:
            skipped.append(Skipped(name, f"same file as {first[real]} (symbolic link)"))
            continue
        first[real] = name
        unique.append(path)
    return unique


def _relative(path: Path, docs_dir: Path) -> str:
    try:
        return Path(path).relative_to(docs_dir).as_posix()
    except ValueError:
        return Path(os.path.relpath(path, docs_dir)).as_posix()


# --- reading -----------------------------------------------------------------------------


def _read(path: Path) -> bytes:
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            msg = "not a regular file"
            raise DocumentError(msg)
        if info.st_size > MAX_FILE_BYTES:
            size, limit = info.st_size / 2**20, MAX_FILE_BYTES // 2**20
            msg = f"too large: {size:.1f} MB (the limit is {limit} MB)"
            raise DocumentError(msg)
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise DocumentError(_os_reason(error)) from error
    if not data:
        msg = "empty file"
        raise DocumentError(msg)
    if len(data) > MAX_FILE_BYTES:
        msg = f"too large: grew past {MAX_FILE_BYTES // 2**20} MB while reading"
        raise DocumentError(msg)
    return data


def _os_reason(error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return "file not found (removed, or a broken symbolic link)"
    if isinstance(error, PermissionError):
        return "permission denied"
    return f"cannot read: {error.strerror or type(error).__name__}"


def _decode(data: bytes) -> str:
    try:
        return decode_text(data)
    except UndecodableText as error:
        advice = "" if b"\x00" in data else "; save it as UTF-8"
        msg = f"{error}{advice}"
        raise DocumentError(msg) from error


_HEADING_LINE = re.compile(r"#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*")
_FENCE = re.compile(r"[ ]{0,3}(```|~~~)")


def _first_heading(text: str) -> str:
    """The first level-1 heading outside fenced code (``# install`` in a shell block is not)."""
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _HEADING_LINE.fullmatch(line)):
            return match.group(1).strip()
    return ""


__all__ = [
    "MAX_FILE_BYTES",
    "SUPPORTED_SUFFIXES",
    "DocumentError",
    "LoadedFile",
    "Skipped",
    "discover",
    "hidden",
    "load_file",
    "load_folder",
    "load_path",
    "walk",
]
