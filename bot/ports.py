"""What the Slack edge needs from its neighbours, as small interfaces.

``Answerer`` and ``SourceIndex`` are the slices of :class:`rag.pipeline.Pipeline` and
:class:`rag.search.index.Index` the listeners use (so tests can hand in a stub and ``bot/`` stays
decoupled from how answers are made). ``Origin`` and ``ReviewHooks`` are the seam to the human
review desk (bot/review/desk.py, owned by the review work): the questions listener hands it every
``Unverified`` result and asks it for the buttons under a refusal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from slack_sdk.web.async_client import AsyncWebClient

from rag import Chunk, Refusal, Result, Unverified


class SourceIndex(Protocol):
    @property
    def version(self) -> str: ...

    @property
    def chunks(self) -> tuple[Chunk, ...]: ...

    def __len__(self) -> int: ...

    def chunk(self, chunk_id: str) -> Chunk | None: ...


class Answerer(Protocol):
    @property
    def index(self) -> SourceIndex: ...

    async def answer(self, question: str, *, scope: str = ...) -> Result: ...


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a question was asked, so a later reply lands in the asker's thread."""

    channel: str
    thread_ts: str
    """The thread to follow up in: the reply's thread, else the question itself (a top-level
    DM is answered at top level, and a later follow-up threads under the question)."""
    message_ts: str
    user: str
    channel_type: str
    """``im`` for a DM, ``channel`` for a mention (Slack's own ``channel_type`` when given)."""
    question: str


class ReviewHooks(Protocol):
    async def submit_unverified(
        self, client: AsyncWebClient, result: Unverified, origin: Origin
    ) -> None:
        """Queue the draft for reviewers; the asker already has the honest note."""

    def refusal_elements(self, result: Refusal, origin: Origin) -> list[dict[str, Any]]:
        """Block Kit elements (e.g. an "Ask a human" button) shown under a refusal."""
