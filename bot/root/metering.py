"""The metrics of a composed bot (:mod:`bot.metrics`), made with the services so that the answer
core hears its observer from the first question; ``GET /metrics`` renders them.

    Metrics(platforms served, SOURCES_FILE's sources, PROMETHEUS_MULTIPROC_DIR)
      .core             -> the pipeline factory (the chat model's calls, the syncs)
      .watch_index      <- the served index (a live pipeline's holder: version time, backfill)
      .questions(p)     -> each platform's answering (bot/root/slack.py, bot/feishu/app.py)
      .review_decided   -> each review desk's on_decision, beside the report's records
      .watch_reviews    <- each review desk's open reviews
"""

from __future__ import annotations

from collections.abc import Callable

from bot.metrics.exposition import Metrics
from bot.metrics.gauges import IndexFacts, IndexView
from bot.ports import Answerer
from bot.records import Background
from bot.root.config import Config
from rag import LivePipeline, ReviewRecord


def open_metrics(config: Config) -> Metrics:
    """Raises :class:`rag.SettingsError` for a PROMETHEUS_MULTIPROC_DIR set too late."""
    served = {"slack": config.bot.bot_token is not None, "feishu": config.feishu is not None}
    sources = () if config.sources is None else (s.name for s in config.sources.sources)
    return Metrics(
        platforms=[name for name, on in served.items() if on],
        sources=sources,
        multiprocess_dir=config.bot.metrics_dir,
    )


def index_view(pipeline: Answerer) -> IndexView:
    """What ``pipeline``'s index says at scrape time; a live one also when its version was
    swapped in and how much of its backfill is left."""
    if isinstance(pipeline, LivePipeline):
        holder = pipeline.holder

        def live() -> IndexFacts:
            state = holder.state
            left = state.backfill_total - state.backfill_done if state.mode == "lexical" else 0
            return IndexFacts(len(holder), state.documents, state.built_at, max(left, 0))

        return live
    index = pipeline.index

    def fixed() -> IndexFacts:
        return IndexFacts(len(index), len({chunk.source for chunk in index.chunks}))

    return fixed


def decisions(metrics: Metrics, records: Background | None) -> Callable[[ReviewRecord], None]:
    """A review desk's ``on_decision``: counted, and written for ``rag report`` when kept."""
    writer = None if records is None else records.review_writer()

    def decided(record: ReviewRecord) -> None:
        metrics.review_decided(record)
        if writer is not None:
            writer(record)

    return decided
