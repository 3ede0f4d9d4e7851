"""The interface of a source of documents, and the values that cross it.

A source answers three questions, so a third kind (Notion, Google Drive) is one module:

    changed(cursor)  what was modified since the cursor (``None``: everything), and the next
                     cursor
    live()           every id it can still read now (what is missing was deleted, moved away
                     or is no longer readable, and leaves DOCS_DIR)
    fetch(id)        one document as Markdown with its title, URL, modified time and place

A source may also offer ``api_calls() -> int`` (requests sent so far), which the sync's summary
reports as the cost of the sync.

``fetch`` raises :class:`Gone` for a document deleted since it was listed and
:class:`Forbidden` for one the credentials may no longer read: both are dropped. Anything else
(:class:`SourceError`, a network error) is a failure: the last good copy is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from rag.errors import CitebotError


@dataclass(frozen=True, slots=True)
class Entry:
    """A document as a listing names it."""

    id: str
    modified: str
    """When it last changed, ISO 8601 (UTC when the source says so); compared as text with
    the stored one, so any change of it means "fetch again"."""
    where: str = ""
    """Its place and title as the listing shows them: a page moved or renamed without an edit
    (its modified time unchanged) is fetched again, and its file moves."""


@dataclass(frozen=True, slots=True)
class Changes:
    entries: tuple[Entry, ...]
    cursor: str | None
    """Where the next ``changed`` starts (the newest modified time seen)."""


@dataclass(frozen=True, slots=True)
class Document:
    id: str
    title: str
    url: str
    modified: str
    place: tuple[str, ...]
    """Where it sits: the space, then the folders or parent pages (the file's folders)."""
    markdown: str


class SourceError(CitebotError):
    """The source cannot be read now (credentials refused, space missing, server errors after
    retries); the message is one line a person can act on."""


class Gone(SourceError):
    """The document was deleted (or moved out of reach) after it was listed."""


class Forbidden(SourceError):
    """The credentials may no longer read the document."""


class Source(Protocol):
    name: str
    kind: str
    """The folder under DOCS_DIR its documents go to: ``confluence``, ``feishu``."""

    async def changed(self, cursor: str | None) -> Changes: ...

    async def live(self) -> Sequence[Entry]: ...

    async def fetch(self, entry: Entry) -> Document: ...


def newest(entries: Sequence[Entry], cursor: str | None) -> str | None:
    """The cursor after ``entries``: the newest modified time among them and ``cursor``."""
    times = [entry.modified for entry in entries]
    if cursor:
        times.append(cursor)
    return max(times) if times else None


def utc_iso(value: str | float) -> str:
    """``value`` (ISO 8601 with any offset, or epoch seconds) as ``YYYY-MM-DDTHH:MM:SS.mmmZ``
    in UTC, so the newest of several is the largest text."""
    if isinstance(value, int | float) or str(value).strip().isdigit():
        moment = datetime.fromtimestamp(float(value), UTC)
    else:
        moment = datetime.fromisoformat(str(value).strip())
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
