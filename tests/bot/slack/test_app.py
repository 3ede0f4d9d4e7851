"""Failures in listeners: the traceback to the log, one sentence to the person, no crash."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from urllib.parse import quote

import pytest
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.dedupe import Dedupe
from bot.slack.app import build_app
from bot.slack.client import web_client
from bot.slack.reply import SOURCE_ACTION_PREFIX
from rag import Language, Progress
from rag.chunks import Chunk
from rag.messages import model_failure_text
from rag.results import Result
from tests.fakes.slack_api import BOT_TOKEN, TEAM_ID, FakeSlackApi
from tests.scenarios.harness import SIGNING_SECRET, sign


class _BrokenIndex:
    version = "v1"
    chunks: tuple[Chunk, ...] = ()

    def __len__(self) -> int:
        return 0

    def chunk(self, chunk_id: str) -> Chunk | None:
        raise OSError("index file vanished")


class _Answerer:
    index = _BrokenIndex()

    async def answer(
        self,
        question: str,
        *,
        scope: str = "all",
        progress: Progress | None = None,
        language: Language | None = None,
    ) -> Result:
        raise AssertionError("not asked")


def _click(slack_api: FakeSlackApi, action_id: str) -> AsyncBoltRequest:
    payload = {
        "type": "block_actions",
        "user": {"id": "U0BOB"},
        "team": {"id": TEAM_ID},
        "trigger_id": slack_api.new_trigger_id(),
        "container": {"type": "message", "channel_id": "C1", "message_ts": "1.0"},
        "channel": {"id": "C1"},
        "message": {"text": "Refunds are prorated [1].", "ts": "1.0"},
        "actions": [{"action_id": action_id, "value": "v1|abcd|0.9|a.md#0", "type": "button"}],
    }
    body = f"payload={quote(json.dumps(payload))}"
    headers: dict[str, str | Sequence[str]] = {"content-type": "application/x-www-form-urlencoded"}
    headers.update({k.lower(): v for k, v in sign(body.encode()).items()})
    return AsyncBoltRequest(body=body, headers=headers)


def _app(
    slack_api: FakeSlackApi, register_extra: Callable[[AsyncApp], None] | None = None
) -> AsyncApp:
    return build_app(
        client=web_client(BOT_TOKEN, base_url=slack_api.url),
        signing_secret=SIGNING_SECRET,
        answerer=_Answerer(),
        dedupe=Dedupe(None),
        register_extra=register_extra,
    )


async def test_a_failing_citation_click_is_acknowledged_logged_and_the_clicker_told(
    slack_api: FakeSlackApi, caplog: pytest.LogCaptureFixture
) -> None:
    app = _app(slack_api)
    with caplog.at_level(logging.ERROR):
        response = await app.async_dispatch(_click(slack_api, f"{SOURCE_ACTION_PREFIX}1"))
        await slack_api.wait_until(lambda: bool(slack_api.ephemerals))
    assert response.status == 200
    [apology] = slack_api.ephemerals
    assert (apology.user, apology.text) == ("U0BOB", model_failure_text("en"))
    assert any(r.exc_info and "index file vanished" in str(r.exc_info[1]) for r in caplog.records)


async def test_the_error_handler_logs_the_traceback_and_apologises(
    slack_api: FakeSlackApi, caplog: pytest.LogCaptureFixture
) -> None:
    def extra(app: AsyncApp) -> None:
        @app.action("boom")
        async def boom(ack: AsyncAck) -> None:
            raise RuntimeError("listener bug")

    app = _app(slack_api, extra)
    with caplog.at_level(logging.ERROR):
        response = await app.async_dispatch(_click(slack_api, "boom"))
        await slack_api.wait_until(lambda: bool(slack_api.ephemerals))
    assert response.status == 500
    [apology] = slack_api.ephemerals
    assert apology.text == model_failure_text("en")
    assert "listener bug" not in apology.text
    assert any(r.exc_info and "listener bug" in str(r.exc_info[1]) for r in caplog.records)
