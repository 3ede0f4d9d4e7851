"""A running bot's sync round tells its observer how each source's sync ended (the metrics)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rag.http.retry import HttpRetry
from rag.observer import ModelOutcome
from rag.serving.syncing import Syncing
from tests.fakes.confluence_api import FakeConfluence
from tests.rag.sync.conftest import Syncer, sources_toml


@dataclass
class Heard:
    syncs: list[tuple[str, str]] = field(default_factory=list)

    def model_call(self, outcome: ModelOutcome) -> None:
        raise AssertionError("a sync calls no chat model")

    def model_error(self, kind: str, *, retried: bool) -> None:
        raise AssertionError("a sync calls no chat model")

    def synced(self, source: str, outcome: str, seconds: float) -> None:
        assert seconds >= 0
        self.syncs.append((source, outcome))


async def test_each_round_tells_each_source_and_how_it_ended(
    confluence: FakeConfluence, syncer: Syncer
) -> None:
    confluence.add_page("HR", "Annual leave", "<p>Employees get 15 days.</p>")
    heard = Heard()
    syncing = Syncing(
        syncer.sources(sources_toml(confluence)),
        docs_dir=syncer.docs,
        index_dir=syncer.index,
        every_seconds=60,
        on_change=lambda: None,
        retry=HttpRetry(max_attempts=1, sleep=syncer.waits),
        observer=heard,
    )
    assert await syncing.once()
    assert heard.syncs == [("wiki", "ok")]

    confluence.fail("pages", status=500)
    assert not await syncing.once()
    assert heard.syncs == [("wiki", "ok"), ("wiki", "failed")]
