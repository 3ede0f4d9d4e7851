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

from cachetools import TTLCache

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
        if ttl_seconds < 0:
            msg = f"ttl_seconds ({ttl_seconds}) must not be negative"
            raise ValueError(msg)
        self.members = members
        self.reviewers = reviewers
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self._fresh: TTLCache[str, frozenset[str]] = TTLCache(1, ttl_seconds, timer=clock)
        self._last: frozenset[str] | None = None
        """Kept past the TTL: it answers while the platform cannot."""

    async def allows(self, user: str) -> bool:
        if self.reviewers is not None:
            return user in self.reviewers
        members = self._fresh.get("members")
        if members is None:
            members = await self.members()
            if members is None:
                logger.error("the reviewers' channel members are unknown; using the last list")
                return self._last is not None and user in self._last
            self._fresh["members"] = self._last = members
        return user in members
