"""Questions over signed HTTP are recorded, and ``rag report`` names what was refused."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bot.courtesy import courtesy_reply
from bot.records import Background
from rag.cli import main
from rag.messages import refusal_text
from rag.report.store import FileRecords
from rag.search.index import Index
from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.feishu_api import FakeFeishuApi
from tests.fakes.slack_api import FakeSlackApi
from tests.redis_area import RedisArea
from tests.scenarios.feishu_harness import REVIEW_CHAT, REVIEWER, buttons, start_feishu, value_of
from tests.scenarios.harness import IN_KB, OUT_OF_KB, envelope, mention, start_bot
from tests.scenarios.review_harness import IN_KB as LEVELS_QUESTION
from tests.scenarios.review_harness import INDEX, INVENTED, THRESHOLD


async def test_a_refused_question_asked_twice_is_in_the_report_with_its_count(
    slack_api: FakeSlackApi,
    docs_index: Index,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    records = Background(FileRecords(tmp_path, retention_days=30))
    async with start_bot(slack_api, index=docs_index, records=records) as bot:
        for question in (OUT_OF_KB, IN_KB, OUT_OF_KB):
            await bot.send(envelope(mention(question)))
        await bot.idle()  # all three answered (with a thread status, there is no chat.update)
    # Leaving start_bot closed the app, which waits for records still being written.

    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("INDEX_DIR", str(tmp_path))
    monkeypatch.setenv("EMBEDDINGS", "none")
    monkeypatch.chdir(tmp_path)
    assert await asyncio.to_thread(main, ["report", "--json", "--since", "1h"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["totals"]["asked"] == 3
    assert report["totals"]["answered"] == 1
    assert report["unanswered"][0]["question"] == OUT_OF_KB
    assert report["unanswered"][0]["count"] == 2
    stored = (tmp_path / "records" / "questions.jsonl").read_text(encoding="utf-8")
    assert IN_KB not in stored  # answered texts are kept only with LOG_QUESTIONS


async def test_greetings_and_thanks_get_a_courteous_line_and_are_not_unanswered(
    slack_api: FakeSlackApi,
    docs_index: Index,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    records = Background(FileRecords(tmp_path, retention_days=30))
    async with start_bot(slack_api, index=docs_index, records=records) as bot:
        for greeting in ("hello", "你好", "thanks"):
            await bot.send(envelope(mention(greeting)))
        await bot.send(envelope(mention(OUT_OF_KB)))
        await bot.idle()
    replies = [m.text for m in slack_api.messages]
    assert courtesy_reply("greeting", "en") in replies
    assert courtesy_reply("greeting", "zh") in replies
    assert courtesy_reply("thanks", "en") in replies
    assert sum(refusal_text("zh") in text or refusal_text("en") in text for text in replies) == 1

    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("INDEX_DIR", str(tmp_path))
    monkeypatch.setenv("EMBEDDINGS", "none")
    monkeypatch.chdir(tmp_path)
    assert await asyncio.to_thread(main, ["report", "--json", "--since", "1h"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["totals"]["asked"] == 1  # the greetings asked nothing
    assert [group["question"] for group in report["unanswered"]] == [OUT_OF_KB]


async def test_a_feishu_review_decision_is_in_the_report_beside_slacks(
    redis_area: RedisArea,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Review latency percentiles cover both platforms: Feishu's desk records its decisions in
    the same store as Slack's."""
    records = Background(FileRecords(tmp_path, retention_days=30))
    async with FakeFeishuApi() as feishu:
        feishu.chat_members[REVIEW_CHAT] = [REVIEWER]
        async with start_feishu(
            feishu,
            index=INDEX,
            redis=redis_area,
            model=ScriptedChatModel(replies=[INVENTED]),
            min_score=THRESHOLD,
            records=records,
        ) as bot:
            question, _ = await bot.ask_group(LEVELS_QUESTION)
            await feishu.wait_until(lambda: len(feishu.in_chat(REVIEW_CHAT)) == 1)
            [card] = feishu.in_chat(REVIEW_CHAT)
            approve = value_of(next(b for b in buttons(card) if value_of(b)["k"] == "approve"))
            await bot.click(card, approve, user=REVIEWER, form={"text": INVENTED, "reason": ""})
            await feishu.wait_until(lambda: len(feishu.thread(question.message_id)) == 2)
    # Leaving start_feishu closed the app, which waits for records still being written.

    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("INDEX_DIR", str(tmp_path))
    monkeypatch.setenv("EMBEDDINGS", "none")
    monkeypatch.chdir(tmp_path)
    assert await asyncio.to_thread(main, ["report", "--json", "--since", "1h"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["totals"]["sent_to_review"] == 1
    assert report["reviews"]["decisions"] == {"approved": 1}
    assert report["reviews"]["latency_seconds"]["count"] == 1
