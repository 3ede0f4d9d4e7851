"""The exported names follow Prometheus' conventions, each says what it counts, and none can
carry a user's text or ID: label names come from a short fixed list."""

from __future__ import annotations

from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from bot.metrics.catalog import MODEL_ERROR_KINDS
from bot.metrics.exposition import Metrics
from rag.observer import ERROR_KINDS
from tests.scenarios.metrics_scrape import FAMILIES

LABELS = {"platform", "outcome", "stage", "result", "kind", "verdict", "source", "le"}
"""Every label name a citebot metric may have (``le``: a histogram's buckets)."""


async def families() -> list[Metric]:
    """citebot's families as the text-format parser reads them (which lists each counter's and
    histogram's ``_created`` samples as a family of their own: left out)."""
    body, content_type = await Metrics(platforms=["slack"], sources=["wiki"]).render()
    assert content_type.startswith("text/plain")
    return [
        family
        for family in text_string_to_metric_families(body.decode())
        if family.name.startswith("citebot_") and not family.name.endswith("_created")
    ]


async def test_the_scenarios_check_every_family_the_bot_exports() -> None:
    assert sorted(f.name for f in await families()) == sorted(FAMILIES)


async def test_names_units_help_and_labels_follow_the_conventions() -> None:
    for family in await families():
        name, kind = family.name, family.type
        assert family.documentation.endswith("."), name
        assert kind in {"counter", "gauge", "histogram"}, name
        if kind == "counter":
            assert not name.endswith("_total"), name  # the parser strips it: exported with it
            assert {s.name for s in family.samples} <= {f"{name}_total", f"{name}_created"}
        if "seconds" in name:
            assert name.endswith("_seconds"), name
        for sample in family.samples:
            assert set(sample.labels) <= LABELS, name


def test_the_model_error_kinds_are_the_answer_cores() -> None:
    assert MODEL_ERROR_KINDS == ERROR_KINDS
