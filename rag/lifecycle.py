"""Whether a document is in force: its status and dates, as the document itself states them.

Organisations keep the old travel policy beside the new one, archive wiki pages instead of
deleting them and write "this replaces the 2024 version" at the top of a page. A
:class:`Lifecycle` is what a document says of itself (front matter, a wiki's page state, a
first-line notice: :mod:`rag.ingest.lifecycle` reads them) and travels with each of its
passages. :meth:`Lifecycle.standing` turns it into what retrieval needs on a given day:

- ``current``: answered from (a document that says nothing of itself is current);
- ``draft``: answered from only for an audience whose scope includes drafts;
- ``lapsed``: superseded, deprecated, archived, or past its ``expires`` date: never cited as
  the rule; when nothing current answers, the asker is told that the only source is no
  longer in force, and since when;
- ``upcoming``: its ``effective`` date is still ahead: not the rule yet, handled like a
  lapsed one (the asker is told when it takes effect).

Dates are ISO strings (``2025-03-01``); ``expires`` is the last day a document is in force.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

Status = Literal["current", "draft", "deprecated", "superseded", "archived"]
Standing = Literal["current", "draft", "lapsed", "upcoming"]

STATUSES: tuple[Status, ...] = ("current", "draft", "deprecated", "superseded", "archived")
LAPSED: frozenset[str] = frozenset({"deprecated", "superseded", "archived"})


@dataclass(frozen=True, slots=True)
class Lifecycle:
    """What a document says of its own standing; the default is a current document."""

    status: Status = "current"
    superseded_by: str = ""
    """A path relative to DOCS_DIR or a title, as the document names its successor."""
    effective: str = ""
    """First day in force (ISO date), when stated."""
    expires: str = ""
    """Last day in force (ISO date), when stated."""
    updated: str = ""
    """Last-updated date (ISO): front matter ``updated``, a synced page's ``modified``, else the
    file's modification time when its content last changed."""
    dated: bool = False
    """Whether ``updated`` comes from the document itself (front matter, wiki), not the file."""
    notice: str = ""
    """The first-line notice the status was read from, as written ("本办法已被《…》取代")."""

    @property
    def key(self) -> str:
        """Everything the document states of itself, as one string ("" for a document that
        states nothing): part of its passages' hashes, so a change of status is a new index
        version and nothing cached from the old standing is served. The file's time is not
        in it (copying a folder must not change what is answered)."""
        own = (
            self.status if self.status != "current" else "",
            self.superseded_by,
            self.effective,
            self.expires,
            self.updated if self.dated else "",
            self.notice,
        )
        return "|".join(own) if any(own) else ""

    def standing(self, today: date) -> Standing:
        if self.status in LAPSED:
            return "lapsed"
        if self.expires and self.expires < today.isoformat():
            return "lapsed"
        if self.effective and self.effective > today.isoformat():
            return "upcoming"
        return "draft" if self.status == "draft" else "current"

    def shown_status(self, today: date) -> str | None:
        """The word for a source that is not current (``superseded``, ``expired``, ``draft``,
        ``upcoming``); ``None`` for a current one."""
        standing = self.standing(today)
        if standing == "current":
            return None
        if standing == "lapsed" and self.status not in LAPSED:
            return "expired"
        if standing == "lapsed":
            return self.status
        return standing

    def ended(self) -> str:
        """Since when it is not in force, as far as it says: the day after ``expires``, else
        the last-updated date (when it was marked); "" when unknown."""
        if self.expires:
            return date.fromordinal(date.fromisoformat(self.expires).toordinal() + 1).isoformat()
        return self.updated

    def as_row(self) -> list[str] | None:
        """Compact stored form (manifest, snapshot, cache); ``None`` for the default."""
        if self == CURRENT:
            return None
        return [
            self.status,
            self.superseded_by,
            self.effective,
            self.expires,
            self.updated,
            "1" if self.dated else "",
            self.notice,
        ]

    @classmethod
    def from_row(cls, row: list[str] | tuple[str, ...] | None) -> Lifecycle:
        if not row:
            return CURRENT
        status, superseded_by, effective, expires, updated, dated, notice = row
        return cls(
            status=status if status in STATUSES else "current",
            superseded_by=superseded_by,
            effective=effective,
            expires=expires,
            updated=updated,
            dated=bool(dated),
            notice=notice,
        )


CURRENT = Lifecycle()


def source_dates(life: Lifecycle, today: date) -> dict[str, str]:
    """What every cited source carries (``rag ask --json``, batch answers): its last-updated
    date, and its status when it is not current (a draft, say, or a lapsed source named by a
    no-longer-in-force notice)."""
    shown: dict[str, str] = {"updated": life.updated} if life.updated else {}
    status = life.shown_status(today)
    if status is not None:
        shown["status"] = status
    return shown
