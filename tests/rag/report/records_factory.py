"""Question records as the bot would keep them, for report tests."""

from __future__ import annotations

from rag.report.records import QuestionRecord, question_key

DAY = 86400.0
NOW = 1_764_763_200.0  # 2025-12-03 12:00 UTC


def asked(
    text: str,
    verdict: str = "refusal",
    *,
    at: float = NOW - 3600,
    sources: tuple[str, ...] = (),
    cached: bool = False,
    keep_text: bool = True,
) -> QuestionRecord:
    return QuestionRecord.model_validate(
        {
            "at": at,
            "hash": question_key(text),
            "verdict": verdict,
            "reason": "below_threshold" if verdict == "refusal" else None,
            "cached": cached,
            "sources": sources,
            "text": text if keep_text else None,
        }
    )
