"""User groups granting scopes: members read from Slack once per TTL, closed when Slack fails."""

from __future__ import annotations

from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.usergroups import SlackUserGroups
from tests.fakes.clock import FakeClock
from tests.fakes.slack_api import BOT_TOKEN, FakeSlackApi

GROUPS = frozenset({"S0FIN0001", "S0HR00001"})


def client_for(slack: FakeSlackApi) -> AsyncWebClient:
    return AsyncWebClient(token=BOT_TOKEN, base_url=slack.url)


async def test_a_user_is_in_the_groups_that_list_them(slack_api: FakeSlackApi) -> None:
    slack_api.usergroups = {"S0FIN0001": ["U0FIN", "U0BOTH"], "S0HR00001": ["U0BOTH"]}
    groups = SlackUserGroups(client_for(slack_api))
    assert await groups.groups_of("U0FIN", GROUPS) == {"S0FIN0001"}
    assert await groups.groups_of("U0BOTH", GROUPS) == GROUPS
    assert await groups.groups_of("U0NOBODY", GROUPS) == frozenset()
    assert len(slack_api.calls_to("usergroups.users.list")) == 2, "one call per group"


async def test_members_are_read_again_after_the_ttl(slack_api: FakeSlackApi) -> None:
    clock = FakeClock(0.0)
    slack_api.usergroups = {"S0FIN0001": []}
    groups = SlackUserGroups(client_for(slack_api), ttl_seconds=300, clock=clock)
    assert await groups.groups_of("U0NEW", frozenset({"S0FIN0001"})) == frozenset()
    slack_api.usergroups["S0FIN0001"] = ["U0NEW"]
    assert await groups.groups_of("U0NEW", frozenset({"S0FIN0001"})) == frozenset()
    clock.now = 301.0
    assert await groups.groups_of("U0NEW", frozenset({"S0FIN0001"})) == {"S0FIN0001"}


async def test_an_unknown_group_grants_nothing(slack_api: FakeSlackApi) -> None:
    groups = SlackUserGroups(client_for(slack_api))
    assert await groups.groups_of("U0FIN", frozenset({"S0GONE001"})) == frozenset()


async def test_last_known_members_answer_while_slack_fails(slack_api: FakeSlackApi) -> None:
    clock = FakeClock(0.0)
    slack_api.usergroups = {"S0FIN0001": ["U0FIN"]}
    groups = SlackUserGroups(client_for(slack_api), ttl_seconds=300, clock=clock)
    assert await groups.groups_of("U0FIN", frozenset({"S0FIN0001"})) == {"S0FIN0001"}
    slack_api.fail("usergroups.users.list", "fatal_error")
    clock.now = 600.0
    assert await groups.groups_of("U0FIN", frozenset({"S0FIN0001"})) == {"S0FIN0001"}
