"""Read ``GET /metrics`` as Prometheus does: the text format, parsed by prometheus-client's own
parser (:func:`prometheus_client.parser.text_string_to_metric_families`)."""

from __future__ import annotations

from dataclasses import dataclass

import aiohttp
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

FAMILIES = (
    "citebot_questions",
    "citebot_question_duration_seconds",
    "citebot_answer_stage_duration_seconds",
    "citebot_answer_cache_lookups",
    "citebot_model_calls",
    "citebot_model_errors",
    "citebot_model_retries",
    "citebot_review_queue_depth",
    "citebot_review_queue_oldest_age_seconds",
    "citebot_review_decisions",
    "citebot_review_time_to_decision_seconds",
    "citebot_index_passages",
    "citebot_index_documents",
    "citebot_index_version_timestamp_seconds",
    "citebot_index_backfill_remaining_passages",
    "citebot_sync_runs",
    "citebot_sync_duration_seconds",
)
"""Every metric family the bot exports (the parser names a counter without ``_total``)."""


@dataclass(frozen=True)
class Scrape:
    text: str
    samples: tuple[Sample, ...]
    helps: dict[str, str]
    """Each family's HELP text, by family name."""

    def value(self, name: str, **labels: str) -> float:
        """The sum of the samples called ``name`` whose labels include ``labels``; 0 when there
        is none (a labelled series not yet seen)."""
        found = [
            sample.value
            for sample in self.samples
            if sample.name == name and labels.items() <= sample.labels.items()
        ]
        return float(sum(found))

    def has(self, name: str, **labels: str) -> bool:
        return any(s.name == name and labels.items() <= s.labels.items() for s in self.samples)


def parse(text: str) -> Scrape:
    families = list(text_string_to_metric_families(text))
    samples = tuple(sample for family in families for sample in family.samples)
    return Scrape(text, samples, {family.name: family.documentation for family in families})


async def scrape(http: aiohttp.ClientSession, base_url: str) -> Scrape:
    async with http.get(f"{base_url}/metrics") as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        return parse(await response.text())
