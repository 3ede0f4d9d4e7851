"""The fake Slack Web API behaves like Slack where the bot would notice, through slack_sdk."""

from __future__ import annotations

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack.client import RateLimitRetry, web_client
from tests.fakes.clock import FakeClock
from tests.fakes.slack_api import BOT_TOKEN, BOT_USER_ID, FakeSlackApi


def _client(slack_api: FakeSlackApi, waits: list[float] | None = None) -> AsyncWebClient:
    async def record(seconds: float) -> None:
        if waits is not None:
            waits.append(seconds)

    return web_client(
        BOT_TOKEN, base_url=slack_api.url, rate_limit=RateLimitRetry(sleep=record, jitter=0)
    )


def _section(text: str) -> dict[str, object]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


async def test_auth_test_names_the_bot(slack_api: FakeSlackApi) -> None:
    reply = await _client(slack_api).auth_test()
    assert reply["user_id"] == BOT_USER_ID


async def test_a_token_that_is_not_a_bot_token_is_invalid_auth(slack_api: FakeSlackApi) -> None:
    client = AsyncWebClient(token="xoxp-user", base_url=slack_api.url)
    with pytest.raises(SlackApiError) as raised:
        await client.chat_postMessage(channel="C1", text="hi")
    assert raised.value.response["error"] == "invalid_auth"
    assert slack_api.messages == []


async def test_post_then_update_edits_the_stored_message(slack_api: FakeSlackApi) -> None:
    client = _client(slack_api)
    posted = await client.chat_postMessage(channel="C1", text="…", thread_ts="1.0001")
    await client.chat_update(channel="C1", ts=posted["ts"], text="done", blocks=[_section("d")])
    [message] = slack_api.thread("C1", "1.0001")
    assert (message.text, message.edits, message.thread_ts) == ("done", 1, "1.0001")
    assert slack_api.calls_to("chat.postMessage")[0].args["thread_ts"] == "1.0001"


async def test_section_text_over_3000_is_invalid_blocks(slack_api: FakeSlackApi) -> None:
    with pytest.raises(SlackApiError) as raised:
        await _client(slack_api).chat_postMessage(
            channel="C1", text="x", blocks=[_section("a" * 3001)]
        )
    assert raised.value.response["error"] == "invalid_blocks"


async def test_more_than_50_blocks_and_long_button_text_are_rejected(
    slack_api: FakeSlackApi,
) -> None:
    client = _client(slack_api)
    with pytest.raises(SlackApiError):
        await client.chat_postMessage(channel="C1", text="x", blocks=[_section("a")] * 51)
    button = {"type": "button", "text": {"type": "plain_text", "text": "b" * 76}}
    with pytest.raises(SlackApiError):
        await client.chat_postMessage(
            channel="C1", text="x", blocks=[{"type": "actions", "elements": [button]}]
        )
    assert slack_api.messages == []


async def test_update_text_over_4000_is_msg_too_long(slack_api: FakeSlackApi) -> None:
    client = _client(slack_api)
    posted = await client.chat_postMessage(channel="C1", text="x" * 39_000)
    with pytest.raises(SlackApiError) as raised:
        await client.chat_update(channel="C1", ts=posted["ts"], text="y" * 4001)
    assert raised.value.response["error"] == "msg_too_long"


async def test_429_is_retried_after_retry_after_and_the_message_arrives(
    slack_api: FakeSlackApi,
) -> None:
    waits: list[float] = []
    slack_api.rate_limit("chat.postMessage", times=2, retry_after="3")
    await _client(slack_api, waits).chat_postMessage(channel="C1", text="hi")
    assert [call.status for call in slack_api.calls_to("chat.postMessage")] == [429, 429, 200]
    assert waits == [3.0, 3.0]
    assert len(slack_api.messages) == 1


async def test_injected_errors_are_count_limited(slack_api: FakeSlackApi) -> None:
    client = _client(slack_api)
    slack_api.fail("chat.postMessage", "not_in_channel")
    with pytest.raises(SlackApiError) as raised:
        await client.chat_postMessage(channel="C1", text="hi")
    assert raised.value.response["error"] == "not_in_channel"
    await client.chat_postMessage(channel="C1", text="hi")
    assert len(slack_api.messages) == 1


async def test_trigger_id_is_single_use_and_expires() -> None:
    clock = FakeClock(0.0)
    async with FakeSlackApi(trigger_ttl_seconds=3.0, clock=clock) as slack_api:
        client = _client(slack_api)
        view = {"type": "modal", "title": {"type": "plain_text", "text": "Source"}, "blocks": []}
        trigger = slack_api.new_trigger_id()
        await client.views_open(trigger_id=trigger, view=view)
        with pytest.raises(SlackApiError) as used:
            await client.views_open(trigger_id=trigger, view=view)
        late = slack_api.new_trigger_id()
        clock.now = 3.5
        with pytest.raises(SlackApiError) as expired:
            await client.views_open(trigger_id=late, view=view)
    assert used.value.response["error"] == "exchanged_trigger_id"
    assert expired.value.response["error"] == "expired_trigger_id"


async def test_form_encoded_methods_read_their_arguments(slack_api: FakeSlackApi) -> None:
    slack_api.users["U1"] = {"name": "alice"}
    slack_api.members["C9"] = ["U1", "U2"]
    client = _client(slack_api)
    assert (await client.users_info(user="U1"))["user"]["name"] == "alice"
    assert (await client.conversations_members(channel="C9"))["members"] == ["U1", "U2"]
    link = await client.chat_getPermalink(channel="C1", message_ts="1.0001")
    assert link["permalink"].endswith("/archives/C1/p10001")


async def test_wait_for_messages_returns_once_they_exist(slack_api: FakeSlackApi) -> None:
    client = _client(slack_api)
    await client.chat_postMessage(channel="C1", text="one")
    await client.chat_postMessage(channel="C2", text="two")
    assert [m.text for m in await slack_api.wait_for_messages(1, channel="C2")] == ["two"]
    with pytest.raises(TimeoutError):
        await slack_api.wait_for_messages(3, within=0.05)


async def test_calls_can_be_read_from_another_process(slack_api: FakeSlackApi) -> None:
    await _client(slack_api).chat_postMessage(channel="C1", text="hi", thread_ts="1.0001")
    base = slack_api.url.removesuffix("api/")
    async with aiohttp.ClientSession() as http, http.get(f"{base}_fake/calls?since=0") as r:
        data = await r.json()
    [call] = data["calls"]
    assert (data["count"], call["method"], call["ok"]) == (1, "chat.postMessage", True)
    assert call["args"]["thread_ts"] == "1.0001"
