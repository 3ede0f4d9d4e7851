"""The rows an audience may be answered from today, and the lapsed ones kept aside."""

from __future__ import annotations

from datetime import date

import numpy as np

from rag.chunks import Chunk
from rag.lifecycle import Lifecycle
from rag.search.in_force import in_force_rows

DAY = date(2025, 7, 1)


def chunks(*lives: Lifecycle) -> list[Chunk]:
    return [
        Chunk(source=f"doc{n}.md", text=f"passage {m}", n=m, lifecycle=life)
        for n, life in enumerate(lives)
        for m in range(2)  # two passages each: the standing is the document's
    ]


def test_a_folder_of_current_documents_keeps_the_scopes_rows_as_they_are() -> None:
    scoped = np.array([0, 1], np.intp)
    found = in_force_rows(chunks(Lifecycle(), Lifecycle()), scoped, drafts=False, today=DAY)
    assert found.answerable is scoped
    assert found.lapsed.tolist() == []
    assert found.stamp == ""


def test_lapsed_and_upcoming_documents_are_kept_aside_and_drafts_need_the_scope() -> None:
    folder = chunks(
        Lifecycle(),
        Lifecycle(status="superseded"),
        Lifecycle(expires="2025-06-30"),
        Lifecycle(effective="2025-08-01"),
        Lifecycle(status="draft"),
    )
    plain = in_force_rows(folder, None, drafts=False, today=DAY)
    assert plain.answerable is not None
    assert plain.answerable.tolist() == [0, 1]
    assert plain.lapsed.tolist() == [2, 3, 4, 5, 6, 7]  # drafts are neither: out of sight
    editors = in_force_rows(folder, None, drafts=True, today=DAY)
    assert editors.answerable is not None
    assert editors.answerable.tolist() == [0, 1, 8, 9]


def test_a_scope_still_limits_both_sets() -> None:
    folder = chunks(Lifecycle(), Lifecycle(status="archived"), Lifecycle())
    found = in_force_rows(folder, np.array([2, 3], np.intp), drafts=False, today=DAY)
    assert found.answerable is not None
    assert found.answerable.tolist() == []
    assert found.lapsed.tolist() == [2, 3]


def test_the_stamp_changes_when_a_dated_document_lapses() -> None:
    folder = chunks(Lifecycle(expires="2025-06-30"), Lifecycle())
    last_day = in_force_rows(folder, None, drafts=False, today=date(2025, 6, 30)).stamp
    next_day = in_force_rows(folder, None, drafts=False, today=DAY).stamp
    assert last_day
    assert next_day
    assert last_day != next_day
