"""Every metric ``GET /metrics`` exports: its name, HELP text, labels and buckets, in one place.

Names follow Prometheus' conventions: ``citebot_`` first, counters end in ``_total``, times
are in seconds (``_seconds``), a gauge of passages ends in ``_passages``. Labels take a few
values each, all listed here or in admin configuration (a SOURCES_FILE source's name): never a
user's, a channel's or a question's text or ID.

Label values known in advance are set to 0 when the catalog is made, so a counter is there
(and ``rate()`` works) before its first event. Gauges read at scrape time keep the most recent
value among a host's processes (``mostrecent``): the process answering the scrape has just set
them, and a process that died leaves no stale value that could win.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

PLATFORMS = ("slack", "feishu")
OUTCOMES = ("answered", "refused", "to_review", "failed")
"""What the asker got: an answer, a refusal, the note that a reviewer will follow up, or the
failure sentence (the chat model unreachable, anything unexpected, a reply that could not be
delivered)."""
STAGES = ("retrieve", "generate", "check", "judge")
"""The stages a fresh answer's ``timings_ms`` names (``judge`` only with CHECKER_MODEL_JUDGE)."""
REVIEW_KINDS = ("review", "gap")
VERDICTS = {"review": ("approved", "edited", "rejected"), "gap": ("answered", "dismissed")}
"""What a reviewer can decide on each kind of card."""
SYNC_OUTCOMES = ("ok", "partial", "failed")
MODEL_ERROR_KINDS = (
    "http_429",
    "http_4xx",
    "http_5xx",
    "timeout",
    "connection",
    "empty_reply",
    "malformed",
    "deadline",
    "other",
)
"""The kinds the answer core tells a failed model request by (its ``ERROR_KINDS``, which
tests/bot/metrics keeps equal to this): set to 0 ahead."""

QUESTION_BUCKETS = (0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120)
STAGE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80)
DECISION_BUCKETS = (60, 300, 900, 1800, 3600, 7200, 14400, 28800, 86400, 259200)
"""A minute to three days: reviewers answer in working hours."""
SYNC_BUCKETS = (1, 5, 15, 30, 60, 120, 300, 600, 1800)


@dataclass(frozen=True)
class Catalog:
    questions: Counter
    question_seconds: Histogram
    stage_seconds: Histogram
    cache_lookups: Counter
    model_calls: Counter
    model_errors: Counter
    model_retries: Counter
    review_queue: Gauge
    review_oldest: Gauge
    review_decisions: Counter
    review_seconds: Histogram
    index_passages: Gauge
    index_documents: Gauge
    index_version_time: Gauge
    backfill_remaining: Gauge
    sync_runs: Counter
    sync_seconds: Histogram


def catalog(
    registry: CollectorRegistry, *, platforms: Iterable[str] = (), sources: Iterable[str] = ()
) -> Catalog:
    """The metrics, registered in ``registry``. ``platforms`` (of :data:`PLATFORMS`) and
    ``sources`` (SOURCES_FILE's names): what is served, whose counters start at 0."""
    made = Catalog(
        *(
            _questions(registry)
            + _model(registry)
            + _review(registry)
            + _index(registry)
            + _sync(registry)
        )
    )
    _zeros(made, tuple(platforms), tuple(sources))
    return made


def _questions(registry: CollectorRegistry) -> tuple[Counter, Histogram, Histogram, Counter]:
    return (
        Counter(
            "citebot_questions",
            "Questions the bot answered, by platform and by what the asker got: answered, "
            "refused, to_review (a reviewer will follow up) or failed.",
            ["platform", "outcome"],
            registry=registry,
        ),
        Histogram(
            "citebot_question_duration_seconds",
            "From a question reaching the bot to its reply shown to the asker.",
            ["platform", "outcome"],
            buckets=QUESTION_BUCKETS,
            registry=registry,
        ),
        Histogram(
            "citebot_answer_stage_duration_seconds",
            "Time in each stage of a freshly computed answer: retrieve, generate (the chat "
            "model, retries included), check (the citation checker), judge (optional).",
            ["stage"],
            buckets=STAGE_BUCKETS,
            registry=registry,
        ),
        Counter(
            "citebot_answer_cache_lookups",
            "Questions looked up in the answer cache: hit (served from it) or miss (computed; "
            "also when an identical question in flight was waited for).",
            ["result"],
            registry=registry,
        ),
    )


def _model(registry: CollectorRegistry) -> tuple[Counter, Counter, Counter]:
    return (
        Counter(
            "citebot_model_calls",
            "Calls to the chat model (answers, follow-up rewrites, the judge), each with its "
            "retries: ok (a reply) or failed (no usable reply after them).",
            ["outcome"],
            registry=registry,
        ),
        Counter(
            "citebot_model_errors",
            "Requests to the chat model that failed, retried or not, by kind: http_429, "
            "http_4xx, http_5xx, timeout, connection, empty_reply, malformed, deadline, other.",
            ["kind"],
            registry=registry,
        ),
        Counter(
            "citebot_model_retries",
            "Requests to the chat model sent again after a transient failure, by its kind.",
            ["kind"],
            registry=registry,
        ),
    )


def _review(registry: CollectorRegistry) -> tuple[Gauge, Gauge, Counter, Histogram]:
    return (
        Gauge(
            "citebot_review_queue_depth",
            "Reviews waiting for a decision: review (an answer that failed the citation "
            "check) and gap (an asker asked a human after a refusal).",
            ["kind"],
            multiprocess_mode="mostrecent",
            registry=registry,
        ),
        Gauge(
            "citebot_review_queue_oldest_age_seconds",
            "How long the oldest open review has waited (0 when none waits).",
            multiprocess_mode="mostrecent",
            registry=registry,
        ),
        Counter(
            "citebot_review_decisions",
            "Review decisions applied, by kind and verdict.",
            ["kind", "verdict"],
            registry=registry,
        ),
        Histogram(
            "citebot_review_time_to_decision_seconds",
            "From a review card being posted to its decision.",
            ["kind"],
            buckets=DECISION_BUCKETS,
            registry=registry,
        ),
    )


def _index(registry: CollectorRegistry) -> tuple[Gauge, Gauge, Gauge, Gauge]:
    def gauge(name: str, text: str) -> Gauge:
        return Gauge(name, text, multiprocess_mode="mostrecent", registry=registry)

    return (
        gauge("citebot_index_passages", "Passages in the index being served."),
        gauge("citebot_index_documents", "Documents in the index being served."),
        gauge(
            "citebot_index_version_timestamp_seconds",
            "When the index version being served was swapped in (Unix time); its age is "
            "time() minus this.",
        ),
        gauge(
            "citebot_index_backfill_remaining_passages",
            "Passages still waiting for their dense vectors (answers are lexical until 0).",
        ),
    )


def _sync(registry: CollectorRegistry) -> tuple[Counter, Histogram]:
    return (
        Counter(
            "citebot_sync_runs",
            "Syncs of a SOURCES_FILE source by a running bot: ok, partial (some documents "
            "failed) or failed (nothing could be listed; the last good copies stay).",
            ["source", "outcome"],
            registry=registry,
        ),
        Histogram(
            "citebot_sync_duration_seconds",
            "How long one source's sync took.",
            ["source"],
            buckets=SYNC_BUCKETS,
            registry=registry,
        ),
    )


def _zeros(made: Catalog, platforms: tuple[str, ...], sources: tuple[str, ...]) -> None:
    for platform in platforms:
        for outcome in OUTCOMES:
            made.questions.labels(platform, outcome)
    for stage in STAGES[:3]:
        made.stage_seconds.labels(stage)
    for result in ("hit", "miss"):
        made.cache_lookups.labels(result)
    for outcome in ("ok", "failed"):
        made.model_calls.labels(outcome)
    for kind in MODEL_ERROR_KINDS:
        made.model_errors.labels(kind)
        made.model_retries.labels(kind)
    _review_zeros(made)
    for source in sources:
        for outcome in SYNC_OUTCOMES:
            made.sync_runs.labels(source, outcome)


def _review_zeros(made: Catalog) -> None:
    for kind in REVIEW_KINDS:
        made.review_queue.labels(kind)
        for verdict in VERDICTS[kind]:
            made.review_decisions.labels(kind, verdict)
