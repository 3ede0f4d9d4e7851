"""``GET /metrics``: the bot's metrics in Prometheus' text format (or OpenMetrics, if asked).

One process (PROMETHEUS_MULTIPROC_DIR unset): the metrics live in this object's own registry,
with the process' CPU, memory and open files beside them (``process_*``).

Several processes on one host (PROMETHEUS_MULTIPROC_DIR set to an empty folder they share):
prometheus-client writes every value to a file per process there, and any process's
``/metrics`` sums the counters and histograms of all of them, so one scrape target (or any
one of the ports) shows the host. The variable must be in the environment before the library
is imported (``.env`` is read first, then the heavy imports): it picks file-backed values once,
at import; :class:`Metrics` refuses a folder the values are not written to.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

from aiohttp import web
from prometheus_client import CollectorRegistry, PlatformCollector, ProcessCollector, values
from prometheus_client.exposition import choose_encoder
from prometheus_client.multiprocess import MultiProcessCollector

from bot.metrics.catalog import catalog
from bot.metrics.gauges import IndexView, Pending, set_index, set_reviews
from bot.metrics.observers import CoreMetrics, QuestionMetrics, review_decided
from rag import ReviewRecord, SettingsError

METRICS_PATH = "/metrics"


class Metrics:
    """What the composition root hands out: :attr:`core` to the answer core,
    :meth:`questions` to each platform's answering, :meth:`review_decided` and
    :meth:`watch_reviews` to the review desks, :meth:`watch_index` for the index; and what
    ``/metrics`` renders (:meth:`render`)."""

    def __init__(
        self,
        *,
        platforms: Iterable[str] = (),
        sources: Iterable[str] = (),
        multiprocess_dir: Path | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.registry = CollectorRegistry()
        self.catalog = catalog(self.registry, platforms=platforms, sources=sources)
        self.core = CoreMetrics(self.catalog)
        self.clock = clock
        self._shown = self._exposed(multiprocess_dir)
        self._index: IndexView | None = None
        self._desks: list[Pending] = []

    def _exposed(self, folder: Path | None) -> CollectorRegistry:
        if folder is None:
            ProcessCollector(registry=self.registry)
            PlatformCollector(registry=self.registry)
            return self.registry
        if values.ValueClass is values.MutexValue:
            msg = (
                f"PROMETHEUS_MULTIPROC_DIR={str(folder)!r} was set after prometheus-client was "
                "imported, so this process's metrics would not be in it; set it in the "
                "environment (or .env) before the bot starts"
            )
            raise SettingsError(msg)
        shown = CollectorRegistry()
        MultiProcessCollector(shown, path=str(folder))  # type: ignore[no-untyped-call]
        return shown

    def questions(self, platform: str) -> QuestionMetrics:
        return QuestionMetrics(self.catalog, platform)

    def review_decided(self, record: ReviewRecord) -> None:
        review_decided(self.catalog, record)

    def watch_index(self, view: IndexView) -> None:
        self._index = view

    def watch_reviews(self, pending: Pending) -> None:
        self._desks.append(pending)

    async def render(self, accept: str = "") -> tuple[bytes, str]:
        """The exposition (body, content type) for a scraper that sent ``accept``."""
        if self._index is not None:
            set_index(self.catalog, self._index())
        await set_reviews(self.catalog, self._desks, self.clock())
        encode, content_type = choose_encoder(accept)
        return encode(self._shown), content_type


def metrics_handler(metrics: Metrics) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def serve(request: web.Request) -> web.Response:
        body, content_type = await metrics.render(request.headers.get("Accept", ""))
        return web.Response(body=body, headers={"Content-Type": content_type})

    return serve
