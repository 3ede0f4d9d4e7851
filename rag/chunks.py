"""The unit of knowledge: a piece of one section of one document, with its provenance.

A chunk's ``text`` is exactly what the model sees and what a citation button shows; it is an
exact substring of its section at ``start``. What is *indexed* may add the title and heading
path (``indexed_text``) so questions that name a section find it, without that text ever being
quoted back as if the document said it twice.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

HEADING_SEPARATOR = " › "


def content_hash(text: str) -> str:
    """Stable across processes and Python versions (never ``hash()``)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrievable passage and where it came from."""

    source: str
    """Path relative to DOCS_DIR, POSIX separators (``policies/refund.md``)."""
    text: str
    """The passage as shown to the model and to people."""
    n: int
    """Position of the chunk within its source, from 0."""
    heading: tuple[str, ...] = ()
    """Heading path of the section, outermost first."""
    start: int = 0
    """Offset of ``text`` inside its section's text."""
    section: int = 0
    """Index of the section within its source, from 0."""
    title: str = ""
    """Document title (front matter, first heading or file stem)."""
    link: str | None = None
    """Where people can read the original, when known (front matter ``url:``)."""
    doc_id: str = field(default="")
    """Identity of the document; defaults to ``source`` (eval corpora set their own ids)."""

    @property
    def id(self) -> str:
        return f"{self.source}#{self.n}"

    @property
    def document(self) -> str:
        return self.doc_id or self.source

    @property
    def heading_path(self) -> str:
        return HEADING_SEPARATOR.join(self.heading)

    @property
    def indexed_text(self) -> str:
        """What retrieval sees: title and heading path give the passage its context."""
        context = [self.title, *self.heading] if self.title else list(self.heading)
        prefix = HEADING_SEPARATOR.join(dict.fromkeys(part for part in context if part))
        return f"{prefix}\n{self.text}" if prefix else self.text

    @property
    def text_with_headings(self) -> str:
        """What the checker reads: title, headings and text, each heading a line of its own (so
        a heading never runs into the passage's first sentence)."""
        return "\n".join((self.title, *self.heading, self.text))

    @property
    def hash(self) -> str:
        return content_hash(self.indexed_text)

    def label(self) -> str:
        """Short human label: ``refund.md · 三、退费计算口径``."""
        name = self.source.rsplit("/", 1)[-1]
        return f"{name} · {self.heading[-1]}" if self.heading else name
