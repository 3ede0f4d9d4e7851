"""guide/grafana-dashboard.json charts what the bot exports: every metric name its queries use
is one ``/metrics`` serves, and every metric the bot exports is on it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from bot.metrics.exposition import Metrics

DASHBOARD = Path(__file__).resolve().parents[1] / "guide" / "grafana-dashboard.json"
NAME = re.compile(r"\bcitebot_[a-z0-9_]+")


def queries() -> list[str]:
    panels = json.loads(DASHBOARD.read_text(encoding="utf-8"))["panels"]
    return [target["expr"] for panel in panels for target in panel.get("targets", [])]


async def exported() -> tuple[set[str], set[str]]:
    """(every sample name /metrics serves, every family name) of a fresh bot's metrics."""
    body, _ = await Metrics(platforms=["slack", "feishu"], sources=["wiki"]).render()
    families = [
        family
        for family in text_string_to_metric_families(body.decode())
        if family.name.startswith("citebot_") and not family.name.endswith("_created")
    ]
    samples = {name for family in families for name in _names(family.name, family.type)}
    return samples, {family.name for family in families}


def _names(family: str, kind: str) -> set[str]:
    if kind == "counter":
        return {f"{family}_total"}
    if kind == "histogram":
        return {f"{family}_bucket", f"{family}_count", f"{family}_sum"}
    return {family}


async def test_every_query_names_a_metric_the_bot_exports() -> None:
    samples, _ = await exported()
    used = {name for query in queries() for name in NAME.findall(query)}
    assert used, "the dashboard queries no citebot metric"
    assert used - samples == set()


async def test_every_exported_metric_is_on_the_dashboard() -> None:
    _, families = await exported()
    text = "\n".join(queries())
    assert {family for family in families if family not in text} == set()
