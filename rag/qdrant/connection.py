"""The process's connection to Qdrant: where it is, its clients, and the failure policy.

``QDRANT_URL`` names a server or cluster (``QDRANT_API_KEY`` when it is secured); every bot
process connects to the same collection. ``QDRANT_PATH`` is qdrant-client's local mode: the
same client code, run inside this process over a folder that it locks — one process at a time,
for tests and trials, never for a deployment (it keeps every vector in the process's memory).

Questions and builds need different patience: a question's request is bounded by
:data:`SEARCH_TIMEOUT_SECONDS` (a slow store degrades to lexical answers, it does not hold the
asker), a build's by :data:`BUILD_TIMEOUT_SECONDS`. Both go through one
:class:`~rag.storage.vector_guard.GuardedCalls`: one warning per outage, ``/healthz`` shows it.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from qdrant_client import QdrantClient
from qdrant_client.http.exceptions import ApiException

from rag.storage.vector_guard import GuardedCalls

T = TypeVar("T")

SEARCH_TIMEOUT_SECONDS = 2
"""One question's request (whole seconds: the client's unit)."""
BUILD_TIMEOUT_SECONDS = 60
"""One build request (a batch of upserts, a delete by filter)."""
FAILURES: tuple[type[BaseException], ...] = (ApiException, OSError, TimeoutError)
"""What a sick or unreachable Qdrant makes the client raise: its REST layer wraps refused
connections and timeouts in ``ResponseHandlingException``, error replies in
``UnexpectedResponse`` (both ``ApiException``); the gRPC transport is not used."""


@dataclass(frozen=True, slots=True)
class QdrantPlace:
    """Where the collection is: a server (``url``) or a local-mode folder (``path``)."""

    collection: str
    url: str | None = None
    path: Path | None = None
    api_key: str | None = None

    def __post_init__(self) -> None:
        if (self.url is None) == (self.path is None):
            msg = "give exactly one of url (a Qdrant server) or path (local mode)"
            raise ValueError(msg)

    @property
    def location(self) -> str:
        """For logs and ``/healthz``: the URL or folder, never the key."""
        return self.url if self.url is not None else f"local mode at {self.path}"


_LOCAL: dict[Path, QdrantClient] = {}
_LOCAL_LOCK = threading.Lock()


def _local_client(path: Path) -> QdrantClient:
    """One client per folder in this process: local mode locks its folder, so a second
    client on it (a test's second pipeline, ``rag ask`` after a build) would be refused."""
    key = path.resolve()
    with _LOCAL_LOCK:
        client = _LOCAL.get(key)
        if client is None or getattr(client._client, "closed", False):  # local mode's flag
            client = QdrantClient(path=str(key))
            _LOCAL[key] = client
        return client


@atexit.register
def _release_all() -> None:
    """Closed before the interpreter tears modules down (the client's own ``__del__`` would
    then print a traceback on every exit of ``rag ask``)."""
    for path in list(_LOCAL):
        release_local(path)


def release_local(path: Path) -> None:
    """Close this process's local-mode client on ``path`` (tests, a trial's end): the folder
    is unlocked for another process."""
    with _LOCAL_LOCK:
        client = _LOCAL.pop(path.resolve(), None)
    if client is not None:
        client.close()


class Connection:
    """The clients of one :class:`QdrantPlace` behind one failure policy."""

    def __init__(self, place: QdrantPlace, *, cooldown_seconds: float = 5.0) -> None:
        self.place = place
        self.guard = GuardedCalls(
            f"Qdrant at {place.location}", FAILURES, cooldown_seconds=cooldown_seconds
        )
        if place.path is not None:
            self.search_client = self.build_client = _local_client(place.path)
            # Local mode runs in this process: its numpy arrays and SQLite file are not meant
            # for a build thread and question threads at once.
            self._lock: threading.Lock | None = threading.Lock()
        else:
            self.search_client = self._remote(place, SEARCH_TIMEOUT_SECONDS)
            self.build_client = self._remote(place, BUILD_TIMEOUT_SECONDS)
            self._lock = None

    @staticmethod
    def _remote(place: QdrantPlace, timeout: int) -> QdrantClient:
        # No version check at construction: it runs on a thread of its own and, with the
        # server down at start, warns outside the one-warning-per-outage policy; a server
        # that does not speak the client's API fails the first build with its reason.
        return QdrantClient(
            url=place.url, api_key=place.api_key, timeout=timeout, check_compatibility=False
        )

    @property
    def local(self) -> bool:
        return self.place.path is not None

    def run(self, call: Callable[[QdrantClient], T], *, building: bool = False) -> T:
        """``call(client)``, guarded; raises :class:`VectorStoreUnavailable`."""
        client = self.build_client if building else self.search_client
        if self._lock is None:
            return self.guard.run(lambda: call(client))
        lock = self._lock
        with lock:
            return self.guard.run(lambda: call(client))

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "qdrant",
            "location": self.place.location,
            "collection": self.place.collection,
            "state": self.guard.state,
        }

    def close(self) -> None:
        """Remote clients close; a local-mode client stays open for this process's others."""
        if not self.local:
            self.search_client.close()
            self.build_client.close()
