"""The report's cited documents past their expires date or not updated for a while."""

from __future__ import annotations

from rag.lifecycle import Lifecycle
from rag.report.dated import dated_documents, dated_lines
from tests.rag.report.records_factory import DAY, NOW, asked

LIVES = {
    "hr/pilot.md": Lifecycle(expires="2025-11-30", updated="2025-01-01", dated=True),
    "hr/leave.md": Lifecycle(updated="2023-05-01", dated=True),
    "it/vpn.md": Lifecycle(updated="2025-11-01"),
}


def test_documents_cited_after_expiry_and_stale_cited_ones_are_listed() -> None:
    questions = [
        asked("remote?", "answer", at=NOW - 10 * DAY, sources=("hr/pilot.md",)),  # in force
        asked("remote again?", "answer", at=NOW - DAY, sources=("hr/pilot.md",)),
        asked("leave?", "answer", sources=("hr/leave.md", "it/vpn.md")),
        asked("gym?", "refusal", sources=("hr/leave.md",)),  # a near miss is not a citation
    ]
    dated = dated_documents(questions, LIVES, until=NOW, stale_after_days=365)

    assert dated["cited_after_expiry"] == [
        {
            "source": "hr/pilot.md",
            "expires": "2025-11-30",
            "citations": 1,
            "last_cited": "2025-12-02",
        }
    ]
    assert dated["stale"] == [{"source": "hr/leave.md", "updated": "2023-05-01", "citations": 1}]
    text = "\n".join(dated_lines(dated))
    assert "hr/pilot.md (expired 2025-11-30" in text
    assert "not updated for 365 days" in text


def test_zero_days_lists_no_stale_documents_and_no_index_lists_nothing() -> None:
    questions = [asked("leave?", "answer", sources=("hr/leave.md",))]
    assert dated_documents(questions, LIVES, until=NOW, stale_after_days=0)["stale"] == []
    assert dated_documents(questions, None, until=NOW, stale_after_days=365)["stale"] == []
