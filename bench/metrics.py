"""What the metrics cost: one question counted, and one scrape of ``/metrics`` rendered.

    .venv/bin/python -m bench.metrics

Counts 10,000 questions through the object each platform's answering calls (a fresh answer with
its stage timings, so the most work a question does here), then renders the exposition 500
times with the gauges refreshed as a scrape refreshes them (a review desk of 50 open reviews in
this process). Prints medians; the run's load is in ``uptime``.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from bot.metrics.exposition import Metrics
from bot.metrics.gauges import IndexFacts
from bot.origin import Origin
from bot.questionlog import QuestionLog
from bot.review.records import OpenReview, Ticket
from rag.chunks import Chunk
from rag.results import Answer, Hit

QUESTIONS = 10_000
SCRAPES = 500


def _log() -> QuestionLog:
    hit = Hit(Chunk(source="refund.md", text="退费按剩余课时计算。", n=0), 0.9)
    timings = {"retrieve": 12.0, "generate": 1800.0, "check": 40.0, "total": 1860.0}
    log = QuestionLog("Ev1", "channel", "退费怎么算？", stage="deliver", verdict="answer")
    log.result = Answer("退费怎么算？", "退费按剩余课时计算[1]。", (hit,), timings_ms=timings)
    log.timings_ms["total"] = 2100.0
    return log


async def main() -> None:
    metrics = Metrics(platforms=["slack", "feishu"], sources=["wiki", "handbook"])
    origin = Origin("C1", "1.1", "1.1", "U1", "channel", "q", "all")
    open_reviews = [
        OpenReview(Ticket.opened(f"r{n}", "review", origin, created=time.time() - n), "q")
        for n in range(50)
    ]

    async def pending() -> list[OpenReview]:
        return open_reviews

    metrics.watch_reviews(pending)
    metrics.watch_index(lambda: IndexFacts(100_000, 2_000, time.time(), 0))
    watch, log = metrics.questions("slack"), _log()
    started = time.perf_counter()
    for _ in range(QUESTIONS):
        watch.finished(log)
    per_question = (time.perf_counter() - started) / QUESTIONS * 1e6
    times, size = [], 0
    for _ in range(SCRAPES):
        started = time.perf_counter()
        body, _ = await metrics.render()
        times.append((time.perf_counter() - started) * 1000)
        size = len(body)
    print(f"one question counted: {per_question:.1f} µs")
    print(f"one scrape rendered: median {statistics.median(times):.2f} ms, {size:,} bytes")


if __name__ == "__main__":
    asyncio.run(main())
