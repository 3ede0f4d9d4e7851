"""Who will read an answer, and so which documents it may be built from (platform-neutral).

The rule (the scopes issue): an answer's audience decides what it may be built from.

- In a channel everyone there sees the answer: the channel's scopes from ``[channels]``, else
  ``[defaults] channels``, else the channel is **not enabled** (no answer, nothing retrieved).
- In a DM only the asker sees it: their scopes from ``[users]``, else ``[defaults] dms``; the
  scopes of their user groups (``[usergroups]``) are added either way. Neither: DMs with them
  are not enabled.
- REVIEW_CHANNEL is trusted with every scope: reviewers see every card's question, draft and
  sources.
- Without SCOPES_FILE everyone sees every document, everywhere.

Each platform's edge says what kind of place an event comes from (a Slack ``D…`` channel is a
DM, a Feishu ``p2p`` chat is one) and asks :class:`Audiences`; ``None`` means not enabled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from rag import EVERYTHING, ScopeSet, ScopesFile


class GroupMembership(Protocol):
    """Which of ``groups`` a user belongs to (Slack user groups; cached by the platform)."""

    async def groups_of(self, user: str, groups: frozenset[str]) -> frozenset[str]: ...


@dataclass(frozen=True, slots=True)
class Audiences:
    scopes: ScopesFile | None
    """SCOPES_FILE; ``None``: every place sees every document."""
    review_channel: str | None = None
    groups: GroupMembership | None = None

    @property
    def version(self) -> str | None:
        """The scopes file's version (``/healthz``), ``None`` without one."""
        return None if self.scopes is None else self.scopes.version

    def channel(self, channel: str) -> ScopeSet | None:
        """What an answer in ``channel`` may be built from; ``None``: not enabled there."""
        if self.scopes is None:
            return EVERYTHING
        if channel == self.review_channel:
            return self.scopes.catalog.every_scope()
        names = self.scopes.channels.get(channel, self.scopes.default_channels)
        return None if names is None else self.scopes.catalog.of(names)

    async def direct(self, user: str) -> ScopeSet | None:
        """What an answer in a DM with ``user`` may be built from; ``None``: not enabled."""
        if self.scopes is None:
            return EVERYTHING
        names = self.scopes.users.get(user, self.scopes.default_dms)
        granted = await self._granted(user)
        if names is None and not granted:
            return None
        return self.scopes.catalog.of((names or frozenset()) | granted)

    async def place(self, *, channel: str, user: str, is_dm: bool) -> ScopeSet | None:
        """The audience of a message or click in ``channel`` by ``user``."""
        return await self.direct(user) if is_dm else self.channel(channel)

    def follow_ups(self, channel: str) -> bool | None:
        """``[follow_ups]`` for ``channel``; ``None`` when the file doesn't say."""
        return None if self.scopes is None else self.scopes.follow_ups.get(channel)

    async def _granted(self, user: str) -> frozenset[str]:
        assert self.scopes is not None
        if not self.scopes.usergroups or self.groups is None:
            return frozenset()
        member_of = await self.groups.groups_of(user, frozenset(self.scopes.usergroups))
        return frozenset(
            name for group in member_of for name in self.scopes.usergroups.get(group, ())
        )
