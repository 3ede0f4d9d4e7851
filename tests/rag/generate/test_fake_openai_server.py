"""The fake OpenAI server is shared by other tests: pin the behaviour they rely on."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from tests.fakes.openai_server import FakeOpenAIServer, HttpError, RecordedRequest, Reply

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0}


async def post(
    server: FakeOpenAIServer, body: Any, *, key: str | None = None, path: str = "/chat/completions"
) -> tuple[int, dict[str, Any], dict[str, str]]:
    headers = {"Authorization": f"Bearer {key or server.api_key}"}
    async with (
        aiohttp.ClientSession() as session,
        session.post(server.base_url + path, json=body, headers=headers) as response,
    ):
        return response.status, await response.json(), dict(response.headers)


async def test_replies_are_openai_shaped_and_requests_recorded(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.script(Reply("hello", finish_reason="length"))
    status, reply, _ = await post(openai_server, BODY)
    assert status == 200
    assert reply["object"] == "chat.completion"
    assert reply["model"] == "m"
    assert reply["choices"] == [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "hello"},
            "finish_reason": "length",
        }
    ]
    assert set(reply["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    [request] = openai_server.requests
    assert (request.model, request.params, request.content_of("user")) == (
        "m",
        {"temperature": 0},
        "hi",
    )


@pytest.mark.parametrize("bound", ["max_completion_tokens", "max_tokens"])
async def test_a_reply_longer_than_the_requests_bound_is_cut_there(
    openai_server: FakeOpenAIServer, bound: str
) -> None:
    openai_server.script("a reply of thirty characters..")
    _, reply, _ = await post(openai_server, {**BODY, bound: 8})
    [choice] = reply["choices"]
    assert (choice["message"]["content"], choice["finish_reason"]) == ("a reply ", "length")
    assert reply["usage"]["completion_tokens"] == 8


async def test_a_wrong_key_gets_openais_401_and_is_still_recorded(
    openai_server: FakeOpenAIServer,
) -> None:
    status, reply, _ = await post(openai_server, BODY, key="sk-wrong")
    assert status == 401
    assert reply["error"]["code"] == "invalid_api_key"
    assert len(openai_server.requests) == 1


async def test_bodies_without_model_or_messages_get_a_400(openai_server: FakeOpenAIServer) -> None:
    for body in ({"messages": BODY["messages"]}, {"model": "m", "messages": []}, ["x"]):
        status, reply, _ = await post(openai_server, body)
        assert status == 400
        assert reply["error"]["type"] == "invalid_request_error"


async def test_errors_carry_retry_after_and_the_short_path_works(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.script(HttpError(429, retry_after="7"))
    status, reply, headers = await post(openai_server, BODY, path="/chat/completions")
    assert (status, headers["Retry-After"]) == (429, "7")
    assert reply["error"]["code"] == "rate_limit_exceeded"


async def test_a_responder_answers_once_the_script_is_used_up(
    openai_server: FakeOpenAIServer,
) -> None:
    def echo(request: RecordedRequest) -> str:
        return request.content_of("user").upper()

    openai_server.script("first")
    openai_server.responder = echo
    assert (await post(openai_server, BODY))[1]["choices"][0]["message"]["content"] == "first"
    assert (await post(openai_server, BODY))[1]["choices"][0]["message"]["content"] == "HI"


async def test_without_script_or_responder_the_call_fails_saying_so() -> None:
    async with FakeOpenAIServer() as server:
        status, reply, _ = await post(server, BODY)
    assert status == 400
    assert "no scripted reply" in reply["error"]["message"]
