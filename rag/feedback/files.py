"""Votes without Redis: JSON lines under ``INDEX_DIR/records/votes.jsonl``, beside the question
records, so every bot process on the host and ``rag report`` read the same votes.

Each vote (and each note) appends its whole record under an exclusive file lock; a person's
latest line on an answer is their vote. The file is rewritten at most hourly without the lines
a later one replaced and without what is older than RETENTION_DAYS, so it stays bounded. An
unreadable line (damage, a future format) is skipped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock

from rag.feedback.votes import VoteRecord, merged, parsed, with_note
from rag.storage.retained import RecordsFolder

VOTES_FILE = "votes.jsonl"


def latest(records: list[VoteRecord]) -> dict[tuple[str, str], VoteRecord]:
    """Each person's current vote per answer (a later line replaces an earlier one)."""
    return {(record.answer, record.user): record for record in records}


class FileVotes:
    def __init__(
        self, index_dir: Path, *, retention_days: int, clock: Callable[[], float] = time.time
    ) -> None:
        self._folder = RecordsFolder(
            index_dir, retention_days=retention_days, lock_name=".votes.lock", clock=clock
        )
        self.path = self._folder.directory / VOTES_FILE
        self.where = str(self.path)
        self._clock = clock

    def _locked(self) -> FileLock:
        return self._folder.locked()

    def _current(self) -> dict[tuple[str, str], VoteRecord]:
        if not self.path.exists():
            return {}
        cutoff = self._folder.cutoff()
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return {key: v for key, v in latest(parsed(lines)).items() if v.at >= cutoff}

    def _store(self, current: dict[tuple[str, str], VoteRecord], vote: VoteRecord) -> None:
        current[(vote.answer, vote.user)] = vote
        if self._folder.prune_due(self.path):  # the whole file again, without what's replaced
            self._folder.rewrite(self.path, (v.model_dump_json() for v in current.values()))
            return
        with self.path.open("a", encoding="utf-8") as file:
            file.write(vote.model_dump_json() + "\n")

    def _on(self, current: dict[tuple[str, str], VoteRecord], answer: str) -> list[VoteRecord]:
        return sorted((v for v in current.values() if v.answer == answer), key=lambda v: v.at)

    def _cast(self, vote: VoteRecord) -> list[VoteRecord]:
        with self._locked():
            current = self._current()
            self._store(current, merged(current.get((vote.answer, vote.user)), vote))
            return self._on(current, vote.answer)

    def _annotate(self, answer: str, user: str, note: str) -> list[VoteRecord] | None:
        with self._locked():
            current = self._current()
            vote = current.get((answer, user))
            if vote is None or vote.verdict != "down":
                return None
            self._store(current, with_note(vote, note, self._clock()))
            return self._on(current, answer)

    def _since(self, since: float) -> list[VoteRecord]:
        with self._locked():
            found = [v for v in self._current().values() if v.at >= since]
        return sorted(found, key=lambda vote: vote.at)

    async def cast(self, vote: VoteRecord) -> list[VoteRecord]:
        return await asyncio.to_thread(self._cast, vote)

    async def annotate(self, answer: str, user: str, note: str) -> list[VoteRecord] | None:
        return await asyncio.to_thread(self._annotate, answer, user, note)

    async def since(self, since: float) -> list[VoteRecord]:
        return await asyncio.to_thread(self._since, since)
