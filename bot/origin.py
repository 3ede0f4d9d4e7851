"""Where a question was asked: what the answering core and the review desk both carry, so a
later reply (a reviewer's decision, a follow-up) lands in the asker's thread. Imports nothing
of bot/, so either can use it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a question was asked, so a later reply lands in the asker's thread."""

    channel: str
    """The conversation (Slack channel or DM id; Feishu chat id)."""
    thread_ts: str
    """The thread to follow up in: the reply's thread, else the question itself (a top-level
    DM is answered at top level, and a later follow-up threads under the question)."""
    message_ts: str
    """The question's own message id."""
    user: str
    channel_type: str
    """``im`` for a DM, ``channel`` for a mention (Slack's own ``channel_type`` when given)."""
    question: str
    """The question as answered: standalone (a follow-up rewritten from its conversation)."""
    scope: str
    """Key of the documents the answer's audience may see (:mod:`bot.audience`): it selects
    what is searched and keys the cache, reviewed answers and review tickets. Required, with no
    default, so a new way in (a follow-up, a platform) cannot forget the audience rule."""
    asked: str = ""
    """The message as the person wrote it, when that differs from ``question``."""
    conversation: tuple[str, ...] = ()
    """The earlier standalone questions that led to this one (shown on a review card)."""

    @property
    def asker(self) -> str:
        """Who asked (``user``), by the name a review ticket gives them."""
        return self.user


class AskedIn(Protocol):
    """Where a question was asked, as an origin, a ticket or a voted-down answer carries it."""

    @property
    def channel(self) -> str: ...
    @property
    def thread_ts(self) -> str: ...
    @property
    def asker(self) -> str: ...
    @property
    def message_ts(self) -> str: ...
    @property
    def scope(self) -> str: ...
