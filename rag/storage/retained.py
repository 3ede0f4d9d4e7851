"""Records kept as JSON lines under ``INDEX_DIR/records/`` for RETENTION_DAYS (no Redis).

Question and review records (:mod:`rag.report.store`) and votes (:mod:`rag.feedback.files`)
are written there by every bot process of the host and read by ``rag report``; each store
keeps its own files and takes what they share from :class:`RecordsFolder`: the folder, one
exclusive lock across processes, the hourly prune schedule and the atomic rewrite.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path

from filelock import FileLock

RECORDS_DIR = "records"
DAY_SECONDS = 86400
PRUNE_EVERY_SECONDS = 3600.0
"""A file is rewritten without what is older than the retention at most this often."""


class RecordsFolder:
    def __init__(
        self,
        index_dir: Path,
        *,
        retention_days: int,
        lock_name: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if retention_days < 1:
            msg = f"retention_days ({retention_days}) must be at least 1"
            raise ValueError(msg)
        self.directory = index_dir / RECORDS_DIR
        self.retention = retention_days * DAY_SECONDS
        self.clock = clock
        self._lock = self.directory / lock_name
        self._pruned: dict[str, float] = {}

    def locked(self) -> FileLock:
        """Exclusive across the processes of this host; the lock file stays (never unlinked, so
        no process can lock a file another has just removed)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        return FileLock(self._lock, preserve_lock_file=True)

    def cutoff(self) -> float:
        """Records from before this are past the retention."""
        return self.clock() - self.retention

    def prune_due(self, path: Path) -> bool:
        """Whether ``path`` is due its hourly prune; if so, it counts as pruned from now."""
        now = self.clock()
        if now - self._pruned.get(path.name, float("-inf")) < PRUNE_EVERY_SECONDS:
            return False
        self._pruned[path.name] = now
        return True

    @staticmethod
    def rewrite(path: Path, lines: Iterable[str]) -> None:
        """Replace ``path`` with ``lines`` at once: a reader sees the old file or the new."""
        partial = path.with_suffix(".partial")
        partial.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        partial.replace(path)
