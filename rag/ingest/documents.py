"""A loaded source document, before splitting.

Loaders turn every supported format into Markdown-flavoured text (headings as ``#`` lines) so
one splitter handles them all; provenance travels with the text.
"""

from __future__ import annotations

from dataclasses import dataclass

from rag.chunks import content_hash
from rag.errors import CitebotError
from rag.lifecycle import CURRENT, Lifecycle


@dataclass(frozen=True, slots=True)
class SourceDocument:
    source: str
    """Path relative to DOCS_DIR with POSIX separators, or an eval corpus id."""
    text: str
    """Markdown-flavoured text: headings as ``#`` lines, front matter removed."""
    title: str = ""
    link: str | None = None
    doc_id: str = ""
    about: str = ""
    """What the page's metadata says it is about (description, keywords, aliases): searched
    with every passage of the page, never quoted."""
    lifecycle: Lifecycle = CURRENT
    """What the document says of its standing and dates (:mod:`rag.ingest.lifecycle`)."""

    @property
    def hash(self) -> str:
        # The whole lifecycle, the file's date included: a file whose date changed is split
        # again, so its passages carry the new date (their own hashes leave the date out).
        row = self.lifecycle.as_row()
        dates = "" if row is None else "\n" + "|".join(row)
        return content_hash(f"{self.title}\n{self.link or ''}\n{self.about}\n{self.text}{dates}")


class DocumentError(CitebotError):
    """A file that cannot become a document; ``reason`` is one short human sentence."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
