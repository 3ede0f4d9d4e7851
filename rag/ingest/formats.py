"""PDF, Word and HTML files -> Markdown-flavoured text (headings as ``#`` lines) and metadata.

Each converter returns ``(metadata, text)`` — metadata holds a ``title`` when the file names
one — or raises :class:`~rag.ingest.documents.DocumentError` with a reason a person can act on
("not a PDF: the file is an HTML page", "damaged or truncated DOCX file"). :mod:`rag.ingest.loaders`
decides which converter a file gets.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser

from rag.ingest.documents import DocumentError


def normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def pdf_to_text(data: bytes) -> tuple[dict[str, str], str]:
    head = data[:1024].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")):
        msg = "not a PDF: the file is an HTML page (a failed download?)"
        raise DocumentError(msg)
    if not data.startswith(b"%PDF-"):
        msg = "not a PDF: the file does not start with %PDF-"
        raise DocumentError(msg)
    try:
        from pypdf import PdfReader  # a tenth of a second to import: only folders with PDFs pay

        with _quiet("pypdf"):  # its warnings name no file; our one skip line says it all
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not reader.decrypt(""):
                msg = "password-protected PDF"
                raise DocumentError(msg)
            pages = [page.extract_text() or "" for page in reader.pages]
            title = reader.metadata.title if reader.metadata else None
    except DocumentError:
        raise
    except Exception as error:  # pypdf raises many types on damaged files
        msg = f"unreadable PDF ({_short(error)})"
        raise DocumentError(msg) from error
    text = "\n\n".join(normalise_newlines(page).strip() for page in pages if page.strip())
    return ({"title": title.strip()} if title and title.strip() else {}), text


@contextmanager
def _quiet(name: str) -> Iterator[None]:
    library = logging.getLogger(name)
    level = library.level
    library.setLevel(logging.ERROR)
    try:
        yield
    finally:
        library.setLevel(level)


def _short(error: Exception) -> str:
    detail = " ".join(str(error).split())
    name = type(error).__name__
    return f"{name}: {detail}" if detail and len(detail) <= 80 else name


def docx_to_text(data: bytes) -> tuple[dict[str, str], str]:
    import docx  # python-docx is slow to import; only folders with Word files pay for it

    if not data.startswith(b"PK"):
        msg = "not a DOCX file (no Word/ZIP signature)"
        raise DocumentError(msg)
    try:
        document = docx.Document(io.BytesIO(data))
        blocks = [_docx_block(block) for block in document.iter_inner_content()]
        title = document.core_properties.title or ""
    except Exception as error:  # python-docx and zipfile raise many types on damaged files
        msg = "damaged or truncated DOCX file"
        raise DocumentError(msg) from error
    text = "\n\n".join(block for block in blocks if block.strip())
    return ({"title": title.strip()} if title.strip() else {}), text


def _docx_block(block: object) -> str:
    rows = getattr(block, "rows", None)
    if rows is not None:  # a table: one line per row, merged cells once
        lines = []
        for row in rows:
            cells: list[object] = []
            for cell in row.cells:  # a merged cell is repeated once per grid column it spans
                if not any(cell._tc is seen._tc for seen in cells):  # type: ignore[attr-defined]
                    cells.append(cell)
            lines.append(" | ".join(" ".join(c.text.split()) for c in cells))  # type: ignore[attr-defined]
        return "\n".join(lines)
    text = " ".join(str(getattr(block, "text", "")).split())
    style = getattr(getattr(block, "style", None), "name", "") or ""
    level = _docx_heading_level(style)
    if level and text:
        return f"{'#' * level} {text}"
    return f"- {text}" if text and style.startswith("List") else text


def _docx_heading_level(style: str) -> int:
    if style == "Title":
        return 1
    match = re.fullmatch(r"(?:Heading|标题) ?(\d)", style)
    return min(int(match.group(1)), 6) if match else 0


_HEADING_TAGS = {f"h{level}": "#" * level + " " for level in range(1, 7)}
_BLOCK_TAGS = frozenset(
    {"p", "div", "section", "article", "header", "footer", "main", "aside", "nav", "pre"}
    | {"blockquote", "ul", "ol", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot"}
    | {"figure", "figcaption", "form", "address", "hr", "br", "li", *_HEADING_TAGS}
)
_HIDDEN_TAGS = frozenset({"script", "style", "noscript", "template", "svg"})


class _HtmlText(HTMLParser):
    """HTML -> blocks: headings as ``#`` lines, paragraphs, list items, table rows ``a | b``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.title = ""
        self._words: list[str] = []
        self._row: list[str] | None = None  # cells of the open table row
        self._prefix = ""  # "# " for a heading, "- " for a list item
        self._hidden = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN_TAGS:
            self._hidden += 1
        elif tag == "title":
            self._in_title = True
        elif tag == "tr":
            self._end_row()
            self._flush()
            self._row = []
        elif tag in ("td", "th"):
            if self._row is None:
                self._flush()
                self._row = []
            self._take_cell(keep_empty=False)  # stray text between cells is kept, not dropped
        elif tag in _BLOCK_TAGS:
            self._flush()
            if self._row is not None:
                pass  # inside a table cell: no heading or list markers
            elif tag == "li":
                self._prefix = "- "
            elif tag in _HEADING_TAGS:
                self._prefix = _HEADING_TAGS[tag]

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN_TAGS:
            self._hidden = max(0, self._hidden - 1)
        elif tag == "title":
            self._in_title = False
        elif tag in ("td", "th"):
            self._take_cell(keep_empty=True)
        elif tag in ("tr", "table"):
            self._end_row()
        elif tag in _BLOCK_TAGS:
            self._flush()
            self._prefix = ""

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._hidden:
            self._words.append(data)

    def close(self) -> None:
        super().close()
        self._end_row()
        self._flush()

    def _text(self) -> str:
        text = " ".join("".join(self._words).split())
        self._words = []
        return text

    def _take_cell(self, *, keep_empty: bool) -> None:
        text = self._text()
        if self._row is not None and (text or keep_empty):
            self._row.append(text)
        elif text:  # a cell outside any row: keep its words for the next block
            self._words.append(text)

    def _end_row(self) -> None:
        self._take_cell(keep_empty=False)
        if self._row and any(self._row):
            self.blocks.append(" | ".join(self._row))
        self._row = None

    def _flush(self) -> None:
        if self._row is not None:
            self._words.append(" ")  # a paragraph inside a cell stays in that cell
            return
        text = self._text()
        if text:
            self.blocks.append(self._prefix + text)
            self._prefix = ""


def html_to_text(html: str) -> tuple[dict[str, str], str]:
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    title = " ".join(parser.title.split())
    return ({"title": title} if title else {}), "\n\n".join(parser.blocks)
