"""Who may act on review cards: REVIEWERS, or else whoever is in the reviewers' channel.

Membership is read through the platform (:meth:`bot.ports.ReviewBoard.members`) and kept for a
minute, so a burst of clicks costs one call and someone added to the channel can act shortly
after. When the platform cannot say, the last known list answers; with none, nobody may act
(closed, and logged) — a wrong person approving an answer is worse than a reviewer waiting.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

from bot.members import KnownMembers

logger = logging.getLogger(__name__)

MEMBERS_TTL_SECONDS = 60.0

Members = Callable[[], Awaitable[frozenset[str] | None]]


class Reviewers:
    def __init__(
        self,
        members: Members,
        reviewers: frozenset[str] | None,
        *,
        ttl_seconds: float = MEMBERS_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.members = members
        self.reviewers = reviewers
        self._known = KnownMembers(self._channel_members, ttl_seconds=ttl_seconds, clock=clock)

    async def _channel_members(self, _channel: str) -> frozenset[str] | None:
        members = await self.members()
        if members is None:
            logger.error("the reviewers' channel members are unknown; using the last list")
        return members

    async def allows(self, user: str) -> bool:
        if self.reviewers is not None:
            return user in self.reviewers
        members = await self._known.of("reviewers")
        return members is not None and user in members
