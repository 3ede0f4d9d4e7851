"""``rag ask --json``: every source carries its document's date, and its status when not
current."""

from __future__ import annotations

from datetime import date

from rag.chunks import Chunk
from rag.cli.ask import as_text, numbered_sources
from rag.lifecycle import Lifecycle
from rag.results import Hit, Refusal


def hit(source: str, life: Lifecycle) -> Hit:
    return Hit(Chunk(source=source, text="每月 200 元。", n=0, lifecycle=life), score=0.5)


def test_sources_carry_updated_and_the_status_of_those_not_current() -> None:
    hits = [
        hit("new.md", Lifecycle(updated="2025-01-06", dated=True)),
        hit("old.md", Lifecycle(status="superseded", updated="2024-01-05", dated=True)),
        hit("pilot.md", Lifecycle(expires=f"{date.today().year - 1}-06-30", updated="2024-06-20")),
        hit("plain.md", Lifecycle()),
    ]
    new, old, pilot, plain = numbered_sources(hits)

    assert (new["updated"], "status" in new) == ("2025-01-06", False)
    assert (old["updated"], old["status"]) == ("2024-01-05", "superseded")
    assert pilot["status"] == "expired"
    assert "updated" not in plain
    assert "status" not in plain
    table = as_text(Refusal("通讯补贴多少？", "…", tuple(hits)))
    assert "superseded" in table
    assert "2025-01-06" in table
