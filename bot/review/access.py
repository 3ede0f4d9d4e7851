"""Who may act on review cards: REVIEWERS, or else whoever is in REVIEW_CHANNEL.

Channel membership is read with ``conversations.members`` and kept for a minute, so a burst of
clicks costs one call and someone added to the channel can act shortly after. When Slack cannot
say, the last known list answers; with none, nobody may act (closed, and logged) — a wrong
person approving an answer is worse than a reviewer waiting a moment.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

logger = logging.getLogger(__name__)

MEMBERS_TTL_SECONDS = 60.0


class Reviewers:
    def __init__(
        self,
        review_channel: str,
        reviewers: frozenset[str] | None,
        *,
        ttl_seconds: float = MEMBERS_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl_seconds < 0:
            msg = f"ttl_seconds ({ttl_seconds}) must not be negative"
            raise ValueError(msg)
        self.review_channel = review_channel
        self.reviewers = reviewers
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self._members: tuple[float, frozenset[str]] | None = None

    async def allows(self, client: AsyncWebClient, user: str) -> bool:
        if self.reviewers is not None:
            return user in self.reviewers
        now = self.clock()
        if self._members is None or now - self._members[0] > self.ttl_seconds:
            try:
                self._members = (now, await self._channel_members(client))
            except SlackApiError:
                logger.exception("could not list the members of %s", self.review_channel)
                return self._members is not None and user in self._members[1]
        return user in self._members[1]

    async def _channel_members(self, client: AsyncWebClient) -> frozenset[str]:
        members: set[str] = set()
        cursor = None
        while True:
            page = await client.conversations_members(
                channel=self.review_channel, limit=1000, cursor=cursor
            )
            members.update(str(member) for member in page.get("members") or [])
            cursor = (page.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                return frozenset(members)
