"""Who sees what, over signed HTTP into the real app (``compose``) with a SCOPES_FILE.

The sample docs/ hold HR documents under ``hr/``; the scopes file gives them to the HR channel
and the HR lead's DMs only. Every other place gets ``public`` (the top-level documents and
``it/``), or — a channel not listed, with no channel default — nothing at all.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel

from bot.slack.review_cards import APPROVE
from bot.slack.source_ref import decode
from bot.texts import NOT_ENABLED, NOT_ENABLED_HERE, SOURCE_NOT_HERE
from rag.scopes.file import ScopesFile, load_scopes_file
from rag.search.index import Index
from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.slack_api import BOT_USER_ID, FakeSlackApi, Message
from tests.scenarios.harness import (
    REVIEW_CHANNEL,
    RunningBot,
    bot_env,
    button_click,
    compose,
    counting,
    envelope,
    hashing_pipeline,
    new_ts,
)

HR_CHANNEL, PUBLIC_CHANNEL, OTHER_CHANNEL = "C0HR00001", "C0PUB0001", "C0RANDOM1"
HR_LEAD, ALICE, REVIEWER = "U0HRLEAD1", "U0ALICE01", "U0REVIEW1"
HR_LEAD_DM, ALICE_DM = "D0HRLEAD1", "D0ALICE01"

SCOPES = f"""\
[scopes]
public = ["*.md", "it/**"]
hr = ["hr/**"]

[channels]
{HR_CHANNEL} = ["hr", "public"]
{PUBLIC_CHANNEL} = "public"

[users]
{HR_LEAD} = ["hr", "public"]

[defaults]
dms = "public"
"""
LEAVE = "How many days of annual leave do I get?"
HR_WORDS = ("hr/", "annual-leave", "attendance-and-overtime", "Annual Leave Policy", "年假")


@pytest.fixture
def scopes_path(tmp_path: Path) -> Path:
    path = tmp_path / "scopes.toml"
    path.write_text(SCOPES, "utf-8")
    return path


@pytest.fixture
def scopes(scopes_path: Path) -> ScopesFile:
    return load_scopes_file(scopes_path)


@asynccontextmanager
async def scoped_bot(
    slack: FakeSlackApi,
    index: Index,
    scopes_path: Path,
    *,
    model: BaseChatModel | None = None,
    with_review: bool = False,
) -> AsyncIterator[RunningBot]:
    """The app as ``python -m bot`` composes it, with SCOPES_FILE and REVIEWERS set."""
    env = bot_env(slack, SCOPES_FILE=str(scopes_path), REVIEWERS=REVIEWER)
    pipeline = hashing_pipeline(index, model=model)
    async with compose(env, pipeline=pipeline, with_review=with_review) as served:
        yield RunningBot(served.url, served.http, served.handled)


def mention(channel: str, text: str, user: str = ALICE) -> dict[str, Any]:
    ts = new_ts()
    return {
        "type": "app_mention",
        "user": user,
        "text": f"<@{BOT_USER_ID}> {text}",
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
    }


def direct(channel: str, user: str, text: str) -> dict[str, Any]:
    ts = new_ts()
    return {
        "type": "message",
        "channel_type": "im",
        "user": user,
        "text": text,
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
    }


def shown(message: Message) -> str:
    return message.text + json.dumps(message.blocks, ensure_ascii=False)


async def ask(bot: RunningBot, slack: FakeSlackApi, event: dict[str, Any]) -> Message:
    """Send one question; the bot's final reply in that conversation."""
    assert (await bot.send(envelope(event))).status == 200
    await bot.idle()
    return [m for m in slack.messages if m.channel == event["channel"]][-1]


def has_hr(text: str) -> bool:
    return any(word in text for word in HR_WORDS)


async def test_a_leave_question_in_a_public_channel_gets_no_hr_content_even_after_hr_got_it(
    slack_api: FakeSlackApi, docs_index: Index, scopes_path: Path, scopes: ScopesFile
) -> None:
    model = counting()
    async with scoped_bot(slack_api, docs_index, scopes_path, model=model) as bot:
        in_hr = await ask(bot, slack_api, mention(HR_CHANNEL, LEAVE))
        calls_after_hr = model.calls
        in_public = await ask(bot, slack_api, mention(PUBLIC_CHANNEL, LEAVE))
    assert has_hr(shown(in_hr)), "the HR channel is answered from the HR documents"
    assert not has_hr(shown(in_public))
    assert "cached" not in shown(in_public), "not the HR channel's cached answer"
    assert model.calls == calls_after_hr, "refused before the model: no allowed passage passed"


async def test_the_hr_leads_dm_gets_hr_content_and_an_ordinary_dm_does_not(
    slack_api: FakeSlackApi, docs_index: Index, scopes_path: Path, scopes: ScopesFile
) -> None:
    async with scoped_bot(slack_api, docs_index, scopes_path) as bot:
        lead = await ask(bot, slack_api, direct(HR_LEAD_DM, HR_LEAD, LEAVE))
        alice = await ask(bot, slack_api, direct(ALICE_DM, ALICE, LEAVE))
    assert has_hr(shown(lead))
    assert not has_hr(shown(alice))


async def test_a_channel_not_listed_gets_the_short_note_and_no_answer(
    slack_api: FakeSlackApi, docs_index: Index, scopes_path: Path, scopes: ScopesFile
) -> None:
    model = counting()
    async with scoped_bot(slack_api, docs_index, scopes_path, model=model) as bot:
        event = mention(OTHER_CHANNEL, LEAVE)
        assert (await bot.send(envelope(event))).status == 200
        await bot.idle()
    [note] = slack_api.ephemerals
    assert (note.channel, note.user, note.text) == (OTHER_CHANNEL, ALICE, NOT_ENABLED_HERE["en"])
    assert note.thread_ts == event["ts"]
    assert slack_api.calls_to("chat.postMessage") == [], "no placeholder, no answer"
    assert model.calls == 0


async def test_the_note_is_in_the_askers_language_and_says_no_dm_when_dms_are_off(
    slack_api: FakeSlackApi, docs_index: Index, tmp_path: Path
) -> None:
    path = tmp_path / "no-dms.toml"
    path.write_text(SCOPES.replace('dms = "public"', ""), "utf-8")
    async with scoped_bot(slack_api, docs_index, path) as bot:
        await bot.send(envelope(mention(OTHER_CHANNEL, "年假有几天？")))
        await bot.send(envelope(direct(ALICE_DM, ALICE, "年假有几天？")))
        await bot.idle()
    assert [e.text for e in slack_api.ephemerals] == [NOT_ENABLED["zh"]]
    assert [m.text for m in slack_api.in_channel(ALICE_DM)] == [NOT_ENABLED["zh"]]


def buttons(message: Message, prefix: str = "") -> list[dict[str, Any]]:
    return [
        element
        for block in message.blocks
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"].startswith(prefix)
    ]


async def test_a_citation_click_never_shows_an_out_of_scope_passage(
    slack_api: FakeSlackApi, docs_index: Index, scopes_path: Path, scopes: ScopesFile
) -> None:
    places = [
        (HR_CHANNEL, ALICE),
        (PUBLIC_CHANNEL, ALICE),
        (ALICE_DM, ALICE),
        (HR_LEAD_DM, HR_LEAD),
    ]
    async with scoped_bot(slack_api, docs_index, scopes_path) as bot:
        answer = await ask(bot, slack_api, mention(HR_CHANNEL, LEAVE))
        [button, *_] = [b for b in buttons(answer, "citebot_source_") if "hr/" in b["value"]]
        for channel, user in places:
            # The same button clicked elsewhere (a forwarded or copied message).
            click = button_click(
                slack_api, channel=channel, message_ts=answer.ts, button=button, user=user
            )
            assert (await bot.click(click)).status == 200
        await slack_api.wait_until(lambda: len(slack_api.ephemerals) == len(places))
    by_place = {(e.channel, e.user): e for e in slack_api.ephemerals}
    ref = decode(button["value"])
    assert ref is not None
    for allowed in ((HR_CHANNEL, ALICE), (HR_LEAD_DM, HR_LEAD)):
        assert ref.source in json.dumps(by_place[allowed].blocks, ensure_ascii=False)
    for refused in ((PUBLIC_CHANNEL, ALICE), (ALICE_DM, ALICE)):
        note = by_place[refused]
        assert note.text == SOURCE_NOT_HERE["en"]
        assert not has_hr(note.text + json.dumps(note.blocks, ensure_ascii=False))


async def test_review_and_reviewed_answers_keep_to_their_scope(
    slack_api: FakeSlackApi, docs_index: Index, scopes_path: Path, scopes: ScopesFile
) -> None:
    invented = ScriptedChatModel(replies=["Employees get 40 days of annual leave a year[1]."])
    async with scoped_bot(
        slack_api, docs_index, scopes_path, model=invented, with_review=True
    ) as bot:
        await ask(bot, slack_api, mention(HR_CHANNEL, LEAVE))
        [card] = slack_api.in_channel(REVIEW_CHANNEL)
        assert has_hr(shown(card)), "reviewers are trusted with every scope"
        approve = next(b for b in buttons(card) if b["action_id"] == APPROVE)
        ticket = json.loads(approve["value"])
        assert ticket["s"] == scopes.catalog.of(["hr", "public"]).key
        click = button_click(
            slack_api, channel=REVIEW_CHANNEL, message_ts=card.ts, button=approve, user=REVIEWER
        )
        assert (await bot.click(click)).status == 200
        await slack_api.wait_until(lambda: len(slack_api.in_channel(HR_CHANNEL)) >= 2)
        calls = invented.calls
        again_in_hr = await ask(bot, slack_api, mention(HR_CHANNEL, LEAVE))
        in_public = await ask(bot, slack_api, mention(PUBLIC_CHANNEL, LEAVE))
        in_dm = await ask(bot, slack_api, direct(ALICE_DM, ALICE, LEAVE))
    assert "40 days" in shown(again_in_hr), "the reviewed answer, in its own scope"
    assert invented.calls == calls
    for elsewhere in (in_public, in_dm):
        assert "40 days" not in shown(elsewhere)
        assert not has_hr(shown(elsewhere))
    assert len(slack_api.in_channel(REVIEW_CHANNEL)) == 1, "no card for the refused places"


async def test_healthz_shows_the_scopes_files_version(
    slack_api: FakeSlackApi, docs_index: Index, scopes_path: Path, scopes: ScopesFile
) -> None:
    async with (
        scoped_bot(slack_api, docs_index, scopes_path) as bot,
        bot.http.get(f"{bot.url}/healthz") as response,
    ):
        health = await response.json()
    assert health["scopes"] == {"version": scopes.version}
