"""What reviewed answers store, as versioned pydantic models (layout of rag.reviewed.answers)."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import AwareDatetime, field_serializer, field_validator

from rag.storage.records import Record, check_version

FORMAT_VERSION = 1
"""Version of the stored JSON; records of another version are ignored (asked again)."""


class _Reviewed(Record):
    v: int

    @field_validator("v")
    @classmethod
    def _readable(cls, version: int) -> int:
        return check_version(version, FORMAT_VERSION)


class ReviewedRecord(_Reviewed):
    """A reviewed answer as stored: its sources as ``[chunk_id, chunk_hash, score, rank]``."""

    question: str
    text: str
    reviewed_by: str
    reviewed_at: AwareDatetime
    sources: list[tuple[str, str, float, int]]

    @field_serializer("reviewed_at")
    def _iso(self, moment: datetime) -> str:
        return moment.astimezone(UTC).isoformat()


class RejectionRecord(_Reviewed):
    by: str
    at: datetime

    @field_serializer("at")
    def _iso(self, moment: datetime) -> str:
        return moment.isoformat()
