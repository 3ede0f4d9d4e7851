"""Who may act on a review card: REVIEWERS, else REVIEW_CHANNEL's members (cached briefly)."""

from __future__ import annotations

from slack_sdk.web.async_client import AsyncWebClient

from bot.review.access import Members, Reviewers
from bot.slack.review_board import SlackReviewBoard
from tests.fakes.clock import FakeClock
from tests.fakes.slack_api import BOT_TOKEN, FakeSlackApi


def members_of(slack: FakeSlackApi, channel: str) -> Members:
    """The channel's members as Slack lists them (the platform side of the desk)."""
    return SlackReviewBoard(AsyncWebClient(token=BOT_TOKEN, base_url=slack.url), channel).members


async def test_reviewers_list_decides_without_asking_slack(slack_api: FakeSlackApi) -> None:
    access = Reviewers(members_of(slack_api, "CREVIEW"), frozenset({"UREV"}))

    assert await access.allows("UREV")
    assert not await access.allows("UOTHER")
    assert slack_api.calls_to("conversations.members") == []


async def test_channel_members_are_read_once_and_then_again_after_the_ttl(
    slack_api: FakeSlackApi,
) -> None:
    clock = FakeClock(0.0)
    slack_api.members["CREVIEW"] = ["UREV"]
    access = Reviewers(members_of(slack_api, "CREVIEW"), None, ttl_seconds=60, clock=clock)

    assert await access.allows("UREV")
    assert not await access.allows("UNEW")
    slack_api.members["CREVIEW"] = ["UREV", "UNEW"]
    assert not await access.allows("UNEW")
    clock.now = 61.0

    assert await access.allows("UNEW")
    assert len(slack_api.calls_to("conversations.members")) == 2


async def test_nobody_may_act_when_slack_cannot_list_the_members(
    slack_api: FakeSlackApi,
) -> None:
    access = Reviewers(members_of(slack_api, "CUNKNOWN"), None)

    assert not await access.allows("UREV")


async def test_last_known_members_answer_while_slack_fails(slack_api: FakeSlackApi) -> None:
    clock = FakeClock(0.0)
    slack_api.members["CREVIEW"] = ["UREV"]
    access = Reviewers(members_of(slack_api, "CREVIEW"), None, ttl_seconds=60, clock=clock)
    assert await access.allows("UREV")
    slack_api.fail("conversations.members", "ratelimited")
    clock.now = 120.0

    assert await access.allows("UREV")
    assert not await access.allows("UOTHER")
