"""Only Slack gets in: unsigned, wrongly signed and replayed requests are refused with 401."""

from __future__ import annotations

import json
import time

from rag.search.index import Index
from tests.fakes.slack_api import FakeSlackApi
from tests.scenarios.harness import IN_KB, envelope, mention, sign, start_bot


async def test_bad_missing_and_stale_signatures_get_401_and_no_slack_call(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    body = json.dumps(envelope(mention(IN_KB))).encode()
    stale = sign(body, timestamp=int(time.time()) - 301)
    wrong = {**sign(body), "X-Slack-Signature": "v0=" + "0" * 64}
    tampered = sign(b"{}")
    async with start_bot(slack_api, index=docs_index) as bot:
        statuses = [
            (await bot.post(body, {"Content-Type": "application/json", **headers})).status
            for headers in ({}, wrong, stale, tampered)
        ]
        await bot.idle()
    assert statuses == [401, 401, 401, 401]
    assert [call.method for call in slack_api.calls] == ["auth.test"]  # at start, nothing since


async def test_url_verification_echoes_the_challenge(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    body = json.dumps({"token": "t", "challenge": "c-123", "type": "url_verification"}).encode()
    async with (
        start_bot(slack_api, index=docs_index) as bot,
        bot.http.post(
            f"{bot.url}/slack/events",
            data=body,
            headers={"Content-Type": "application/json", **sign(body)},
        ) as response,
    ):
        assert response.status == 200
        assert (await response.json())["challenge"] == "c-123"


async def test_healthz_reports_index_and_mode_without_secrets(
    slack_api: FakeSlackApi, docs_index: Index
) -> None:
    async with (
        start_bot(slack_api, index=docs_index) as bot,
        bot.http.get(f"{bot.url}/healthz") as response,
    ):
        raw = await response.text()
    health = json.loads(raw)
    assert health["index"] == {"chunks": len(docs_index), "version": docs_index.version}
    assert health["redis"] == "not configured"
    assert health["chat_model"] == "extractive"
    assert "xoxb" not in raw
    assert "secret" not in raw
    assert all(chunk.text[:40] not in raw for chunk in docs_index.chunks)
