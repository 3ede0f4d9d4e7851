"""The Open API client against the fake Feishu API: token, retries, rate limits, idempotency."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest

from bot.feishu.api import FeishuApi
from rag import ChatRate, HttpError, answering_retry
from rag.http.feishu import CredentialsRefused
from tests.fakes.clock import FakeClock
from tests.fakes.feishu_api import APP_ID, APP_SECRET, BOT_OPEN_ID, FakeFeishuApi

CARD = {
    "schema": "2.0",
    "config": {"update_multi": True},
    "body": {"elements": [{"tag": "markdown", "content": "hi"}]},
}


class Waits:
    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


@pytest.fixture
async def feishu() -> AsyncIterator[FakeFeishuApi]:
    async with FakeFeishuApi() as fake:
        yield fake


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as http:
        yield http


def _api(
    feishu: FakeFeishuApi,
    session: aiohttp.ClientSession,
    waits: Waits,
    clock: FakeClock | None = None,
) -> FeishuApi:
    return FeishuApi(
        session,
        base_url=feishu.url,
        app_id=APP_ID,
        app_secret=APP_SECRET,
        retry=answering_retry(sleep=waits),
        rate=ChatRate(sleep=waits, clock=clock or FakeClock()),
        clock=clock or FakeClock(),
    )


async def test_bot_info_names_the_bot_by_open_id(
    feishu: FakeFeishuApi, session: aiohttp.ClientSession
) -> None:
    info = await _api(feishu, session, Waits()).bot_info()
    assert info.open_id == BOT_OPEN_ID
    [token_call] = feishu.calls_to("token")
    assert feishu.calls_to("bot_info")[0].token == token_call.response["tenant_access_token"]


async def test_the_token_is_fetched_once_and_renewed_before_it_expires(
    feishu: FakeFeishuApi, session: aiohttp.ClientSession
) -> None:
    feishu.token_expire = 7200
    clock = FakeClock()
    api = _api(feishu, session, Waits(), clock)
    await api.bot_info()
    clock.now += 5000  # 2200 s left: more than Feishu's 30-minute renewal window
    await api.bot_info()
    assert len(feishu.calls_to("token")) == 1
    clock.now += 500  # 1700 s left: Feishu would now hand out a new token
    await api.bot_info()
    assert len(feishu.calls_to("token")) == 2
    tokens = [call.token for call in feishu.calls_to("bot_info")]
    assert tokens[0] == tokens[1] != tokens[2]


async def test_a_revoked_token_is_refetched_once_and_the_call_succeeds(
    feishu: FakeFeishuApi, session: aiohttp.ClientSession
) -> None:
    api = _api(feishu, session, Waits())
    await api.bot_info()
    feishu.revoke_tokens()
    assert (await api.bot_info()).open_id == BOT_OPEN_ID
    assert len(feishu.calls_to("token")) == 2
    assert [call.status for call in feishu.calls_to("bot_info")] == [200, 400, 200]


async def test_a_token_refused_twice_is_an_error_not_a_loop(
    feishu: FakeFeishuApi, session: aiohttp.ClientSession
) -> None:
    feishu.fail("bot_info", status=400, code=99991663, times=2)
    with pytest.raises(HttpError) as caught:
        await _api(feishu, session, Waits()).bot_info()
    assert caught.value.code == 99991663
    assert len(feishu.calls_to("bot_info")) == 2


async def test_a_rate_limit_waits_the_reset_the_gateway_names(
    feishu: FakeFeishuApi, session: aiohttp.ClientSession
) -> None:
    waits = Waits()
    feishu.user_message("oc_1", "ou_asker", {"text": "q"})
    feishu.rate_limit("send", times=2, reset=3)
    await _api(feishu, session, waits).send("oc_1", CARD, uuid="u-1")
    assert waits.seconds == [3.0, 3.0]
    assert [call.status for call in feishu.calls_to("send")] == [429, 429, 200]
    assert len(feishu.in_chat("oc_1")) == 1


async def test_a_huge_reset_is_capped(
    feishu: FakeFeishuApi, session: aiohttp.ClientSession
) -> None:
    waits = Waits()
    feishu.rate_limit("bot_info", reset=3600)
    await _api(feishu, session, waits).bot_info()
    assert waits.seconds == [30.0]


async def test_server_errors_are_retried_and_bad_requests_are_not(
    feishu: FakeFeishuApi, session: aiohttp.ClientSession
) -> None:
    waits = Waits()
    api = _api(feishu, session, waits)
    feishu.fail("bot_info", status=502, times=2)
    await api.bot_info()
    assert len(waits.seconds) == 2
    feishu.fail("bot_info", status=400, code=230002, times=1)
    with pytest.raises(HttpError) as caught:
        await api.bot_info()
    assert caught.value.code == 230002
    assert len(waits.seconds) == 2


async def test_server_errors_stop_after_the_last_attempt(
    feishu: FakeFeishuApi, session: aiohttp.ClientSession
) -> None:
    feishu.fail("bot_info", status=503, times=10)
    with pytest.raises(HttpError) as caught:
        await _api(feishu, session, Waits()).bot_info()
    assert caught.value.status == 503
    assert len(feishu.calls_to("bot_info")) == answering_retry().max_attempts


async def test_a_reply_lands_in_the_question_thread_once_per_uuid(
    feishu: FakeFeishuApi, session: aiohttp.ClientSession
) -> None:
    question = feishu.user_message("oc_1", "ou_asker", {"text": "q"})
    api = _api(feishu, session, Waits())
    first = await api.reply(question.message_id, CARD, uuid="answer-1", chat="oc_1")
    again = await api.reply(question.message_id, CARD, uuid="answer-1", chat="oc_1")
    assert first == again
    assert [m.message_id for m in feishu.thread(question.message_id)] == [first]
    assert feishu.calls_to("reply")[0].body["reply_in_thread"] is True


async def test_a_card_too_large_is_refused_without_retry(
    feishu: FakeFeishuApi, session: aiohttp.ClientSession
) -> None:
    big = {**CARD, "body": {"elements": [{"tag": "markdown", "content": "字" * 20_000}]}}
    with pytest.raises(HttpError) as caught:
        await _api(feishu, session, Waits()).send("oc_1", big, uuid="big")
    assert caught.value.code == 230025
    assert len(feishu.calls_to("send")) == 1


async def test_patch_replaces_the_card(
    feishu: FakeFeishuApi, session: aiohttp.ClientSession
) -> None:
    api = _api(feishu, session, Waits())
    message_id = await api.send("oc_1", CARD, uuid="u")
    new = {**CARD, "body": {"elements": [{"tag": "markdown", "content": "new"}]}}
    await api.patch(message_id, new)
    message = feishu.find(message_id)
    assert message is not None
    assert message.text == "new"
    assert (await api.message(message_id))["chat_id"] == "oc_1"


async def test_members_lists_open_ids(
    feishu: FakeFeishuApi, session: aiohttp.ClientSession
) -> None:
    feishu.chat_members["oc_review"] = ["ou_a", "ou_b"]
    assert await _api(feishu, session, Waits()).members("oc_review") == {"ou_a", "ou_b"}


async def test_sends_to_one_chat_are_spaced_to_five_a_second() -> None:
    clock = FakeClock()
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        clock.now += seconds

    rate = ChatRate(5, clock=clock, sleep=sleep)
    for _ in range(5):
        await rate.acquire("chat:oc_1")
    await rate.acquire("chat:oc_2")
    assert waits == []
    await rate.acquire("chat:oc_1")
    assert waits == [1.0]


async def test_a_wrong_app_secret_is_refused_credentials_asked_once(
    feishu: FakeFeishuApi, session: aiohttp.ClientSession
) -> None:
    """The bot and the wiki sync share the client (rag.FeishuOpenApi): both tell a refused
    app secret from an endpoint's own error, and neither retries it."""
    waits = Waits()
    api = FeishuApi(
        session,
        base_url=feishu.url,
        app_id=APP_ID,
        app_secret="not-the-secret",
        retry=answering_retry(sleep=waits),
    )
    with pytest.raises(CredentialsRefused) as caught:
        await api.bot_info()
    assert (caught.value.code, caught.value.message) == (10014, "app secret invalid")
    assert len(feishu.calls_to("token")) == 1
    assert feishu.calls_to("bot_info") == []
    assert waits.seconds == []
