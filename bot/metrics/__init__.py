"""Prometheus metrics of a running bot, served at ``GET /metrics`` beside ``/healthz``.

    catalog.py     every metric: name, HELP text, labels, buckets (guide/operations.md lists them)
    observers.py   counted as it happens: questions (from their log record), the chat model's
                   calls and the syncs (the answer core's :class:`rag.Observer`), review decisions
    gauges.py      read at scrape time: the served index, the review queue
    exposition.py  :class:`~bot.metrics.exposition.Metrics`, what the composition root builds
                   and hands out, and the ``/metrics`` handler (one process, or several on one
                   host with PROMETHEUS_MULTIPROC_DIR)

No global registry: each composed app has its own, so tests compose many apps in one process.
"""
