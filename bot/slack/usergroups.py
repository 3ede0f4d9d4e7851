"""``[usergroups]`` of SCOPES_FILE on Slack: who is in a user group, from the Web API.

``usergroups.users.list`` (scope ``usergroups:read``) is asked once per group and the answer
kept for :data:`MEMBERS_TTL_SECONDS`, so a burst of DMs costs one call per group and someone
added to a group gets its scopes within minutes. When Slack cannot say, the last known members
answer; with none, the group grants nothing — a person waiting for their group's scopes is
better than a document shown to someone who may not read it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.members import KnownMembers

logger = logging.getLogger(__name__)

MEMBERS_TTL_SECONDS = 300.0


class SlackUserGroups:
    """:class:`bot.audience.GroupMembership` over the Slack Web API."""

    def __init__(
        self,
        client: AsyncWebClient,
        *,
        ttl_seconds: float = MEMBERS_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._known = KnownMembers(self._listed, ttl_seconds=ttl_seconds, clock=clock)

    async def groups_of(self, user: str, groups: frozenset[str]) -> frozenset[str]:
        found = set()
        for group in sorted(groups):
            if user in (await self._known.of(group) or ()):
                found.add(group)
        return frozenset(found)

    async def _listed(self, group: str) -> frozenset[str] | None:
        try:
            listed = await self._client.usergroups_users_list(usergroup=group)
        except SlackApiError as error:
            logger.warning(
                "could not list the members of user group %s (%s)",
                group,
                error.response.get("error"),
            )
            return None
        return frozenset(str(user) for user in listed.get("users") or [])
