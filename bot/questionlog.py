"""One structured log line per question, so "why did it refuse?" is answerable from logs alone.

JSON on the ``citebot.questions`` logger: event id, channel type, a hash of the question (its
text only when LOG_QUESTIONS is set — questions can be personal), verdict and reason, the top
scores against the threshold's verdict, cache hit, and the latency of every stage.

The same record, once the question is done, goes to a :class:`QuestionWatch` (the metrics:
``bot/metrics/``), which reads its :attr:`~QuestionLog.outcome` and result.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from rag import Refusal, Result

logger = logging.getLogger("citebot.questions")

TOP_SCORES = 3

Outcome = Literal["answered", "refused", "to_review", "failed"]
_OUTCOMES: dict[str, Outcome] = {
    "answer": "answered",
    "refusal": "refused",
    "unverified": "to_review",
}


def question_hash(question: str) -> str:
    """Stable across processes (never ``hash()``): joins log lines about the same question."""
    return hashlib.blake2b(question.encode("utf-8"), digest_size=8).hexdigest()


@dataclass(slots=True)
class QuestionLog:
    event_id: str
    channel_type: str
    question: str
    log_questions: bool = False
    cut: bool = False
    timings_ms: dict[str, float] = field(default_factory=dict)
    verdict: str = "none"
    reason: str | None = None
    error: str | None = None
    messages: int = 0
    fields: dict[str, Any] = field(default_factory=dict)
    stage: str = "start"
    """The step under way (placeholder, pipeline, review_submit, deliver): names a failure."""
    result: Result | None = None
    """What the answer core returned (``None`` before it did, or when the model failed)."""

    def record(self, result: Result) -> None:
        self.result = result
        self.verdict = result.verdict
        if isinstance(result, Refusal):
            self.reason = result.reason
        self.fields["top_scores"] = [round(hit.score, 4) for hit in result.hits[:TOP_SCORES]]
        self.fields["sources"] = [hit.chunk.id for hit in result.hits[:TOP_SCORES]]
        self.fields["cache_hit"] = result.provenance.cached_at is not None
        self.fields["reviewed"] = result.provenance.reviewed_by is not None
        for stage, ms in result.timings_ms.items():
            self.timings_ms.setdefault(f"core_{stage}", ms)

    def line(self) -> str:
        data: dict[str, Any] = {
            "event": "question",
            "event_id": self.event_id,
            "channel_type": self.channel_type,
            "question_hash": question_hash(self.question),
            "question_chars": len(self.question),
            "cut": self.cut,
            "verdict": self.verdict,
            "reason": self.reason,
            **self.fields,
            "messages": self.messages,
            "error": self.error,
            "timings_ms": {stage: round(ms, 1) for stage, ms in self.timings_ms.items()},
        }
        if self.log_questions:
            data["question"] = self.question
        return json.dumps(data, ensure_ascii=False, sort_keys=False)

    def emit(self) -> None:
        logger.info("%s", self.line())

    @property
    def outcome(self) -> Outcome | None:
        """What the asker got; ``None`` when there was no question (help, small talk: answered
        before any step, :attr:`stage` still ``start``)."""
        if self.error is not None:
            return "failed"
        if self.stage == "start":
            return None
        if self.reason == "unverified_without_review":
            return "refused"  # no review desk: the asker was given the refusal sentence
        return _OUTCOMES.get(self.verdict, "failed")


class QuestionWatch(Protocol):
    def finished(self, log: QuestionLog) -> None:
        """``log``'s question is done (replied to or failed), its ``timings_ms["total"]`` set.
        Must return at once and never raise: it runs as the question ends."""
