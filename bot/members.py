"""Who is in a group (the reviewers' channel, a Slack user group), asked of the platform
seldom: each group's members are kept ``ttl_seconds``, so a burst of clicks or DMs costs one
call per group and someone added shows up within that time.

When the platform cannot say (``fetch`` returns ``None``), the last known members answer —
kept past the TTL for that; with none known, the answer is ``None`` and the caller decides
what "unknown" means (both callers: nobody is let in). The clock is injected for tests.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

Fetch = Callable[[str], Awaitable[frozenset[str] | None]]
"""A group's members from the platform; ``None`` when it cannot say (the fetcher logs why)."""


class KnownMembers:
    def __init__(
        self,
        fetch: Fetch,
        *,
        ttl_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl_seconds < 0:
            msg = f"ttl_seconds ({ttl_seconds}) must not be negative"
            raise ValueError(msg)
        self._fetch = fetch
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._known: dict[str, tuple[float, frozenset[str]]] = {}
        """group -> (when fetched, members)."""

    async def of(self, group: str) -> frozenset[str] | None:
        """``group``'s members: fresh, fetched now, or (the platform failing) the last known."""
        now = self._clock()
        known = self._known.get(group)
        if known is not None and now - known[0] < self.ttl_seconds:
            return known[1]
        members = await self._fetch(group)
        if members is None:
            return None if known is None else known[1]
        self._known[group] = (now, members)
        return members
