"""The running bot answers from wiki pages it syncs (SOURCES_FILE), over signed HTTP.

The app is composed as ``python -m bot`` composes it from the environment — SOURCES_FILE with a
fake Confluence Cloud space and a fake Feishu wiki space, SYNC_SECONDS=1, REFRESH_SECONDS=0 —
so the sync, the refresher it wakes, the index swap, the scopes and the citation buttons are
all the real ones. Questions go in as signed mentions; answers are read from the fake Slack.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.slack.source_ref import decode
from tests.fakes import confluence_api, feishu_wiki
from tests.fakes.confluence_api import FakeConfluence
from tests.fakes.feishu_wiki import FakeFeishuWiki, run, text
from tests.fakes.slack_api import BOT_USER_ID, FakeSlackApi, Message
from tests.scenarios.harness import (
    CHANNEL,
    RunningBot,
    bot_env,
    button_click,
    compose,
    envelope,
    new_ts,
)

HR_CHANNEL = "C0HR00001"
BOB = "U0BOB"
LEAVE = "How many days of annual leave do employees get?"
DEPLOYS = "On which day do deploys happen?"
CLAIMS = "报销超过多少元需要总监审批？"
WITHIN = 20.0
LEAVE_PAGE = "<h1>Annual leave</h1><p>Employees get 15 working days of annual leave a year.</p>"
DEPLOY_PAGE = "<h1>Deploys</h1><p>Deploys happen on Tuesday mornings after the change review.</p>"
SCOPES = f"""\
[scopes]
hr = ["confluence/HR/**"]
public = ["*.md", "confluence/ENG/**", "feishu/**"]

[channels]
{HR_CHANNEL} = ["hr", "public"]
{CHANNEL} = "public"
"""


@dataclass
class Wikis:
    confluence: FakeConfluence
    feishu: FakeFeishuWiki
    leave: str
    claims: str


@pytest.fixture
async def wikis() -> AsyncIterator[Wikis]:
    async with FakeConfluence() as confluence, FakeFeishuWiki() as feishu:
        leave = confluence.add_page("HR", "Annual leave", LEAVE_PAGE)
        confluence.add_page("ENG", "Deploys", DEPLOY_PAGE)
        space = feishu.add_space("员工手册")
        claims = feishu.add_doc(
            space, "报销制度", [text("单笔报销", run("超过 5000 元", bold=True), "需总监审批。")]
        )
        yield Wikis(confluence, feishu, leave, claims)


def environment(slack: FakeSlackApi, wikis: Wikis, folder: Path) -> dict[str, str]:
    docs = folder / "docs"
    docs.mkdir()
    (docs / "welcome.md").write_text("# Welcome\n\nThe office opens at 9:00.\n", "utf-8")
    sources = folder / "sources.toml"
    [space] = wikis.feishu.spaces
    sources.write_text(
        f"""\
[sources.wiki]
kind = "confluence-cloud"
url = "{wikis.confluence.cloud_url}"
spaces = ["HR", "ENG"]
email = "{confluence_api.EMAIL}"
token_env = "WIKI_TOKEN"

[sources.handbook]
kind = "feishu-wiki"
spaces = ["{space}"]
site = "https://acme.feishu.cn"
api_url = "{wikis.feishu.url}"
app_id_env = "HANDBOOK_APP_ID"
app_secret_env = "HANDBOOK_APP_SECRET"
""",
        "utf-8",
    )
    scopes = folder / "scopes.toml"
    scopes.write_text(SCOPES, "utf-8")
    return bot_env(
        slack,
        DOCS_DIR=str(docs),
        INDEX_DIR=str(folder / "index"),
        EMBEDDINGS="none",
        REFRESH_SECONDS="0",
        SYNC_SECONDS="1",
        SOURCES_FILE=str(sources),
        SCOPES_FILE=str(scopes),
        WIKI_TOKEN=confluence_api.API_TOKEN,
        HANDBOOK_APP_ID=feishu_wiki.APP_ID,
        HANDBOOK_APP_SECRET=feishu_wiki.APP_SECRET,
    )


def mention(channel: str, question: str) -> dict[str, Any]:
    ts = new_ts()
    return {
        "type": "app_mention",
        "user": "U0ALICE01",
        "text": f"<@{BOT_USER_ID}> {question}",
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
    }


async def ask(bot: RunningBot, slack: FakeSlackApi, channel: str, question: str) -> Message:
    event = mention(channel, question)
    assert (await bot.send(envelope(event))).status == 200
    await bot.idle()
    await slack.wait_until(lambda: bool(slack.thread(channel, event["ts"])), within=10)
    return slack.thread(channel, event["ts"])[-1]


def cited(message: Message) -> list[str]:
    """The documents the reply's citation buttons point at."""
    sources = []
    for block in message.blocks:
        for element in block.get("elements", []) if block["type"] == "actions" else []:
            ref = decode(str(element.get("value", "")))
            if ref is not None:
                sources.append(ref.chunk_id.split("#")[0])
    return sources


async def until_answered(
    bot: RunningBot, slack: FakeSlackApi, channel: str, question: str, check: Any
) -> Message:
    """Ask again until ``check(reply)`` holds: the sync and the re-index run in the background."""
    started = time.monotonic()
    while True:
        reply = await ask(bot, slack, channel, question)
        if check(reply):
            return reply
        if time.monotonic() - started > WITHIN:
            msg = f"not answered within {WITHIN} s; last reply: {reply.text[:300]}"
            raise AssertionError(msg)
        await asyncio.sleep(0.5)


async def test_synced_pages_are_answered_cited_with_their_url_followed_and_scoped(
    slack_api: FakeSlackApi, wikis: Wikis, tmp_path: Path
) -> None:
    env = environment(slack_api, wikis, tmp_path)
    leave_file = "confluence/HR/Annual leave.md"
    async with compose(env, with_review=False) as served:
        bot = RunningBot(served.url, served.http, served.handled)

        # Synced at start, then indexed: the HR channel is answered from the Confluence page.
        reply = await until_answered(
            bot, slack_api, HR_CHANNEL, LEAVE, lambda r: leave_file in cited(r)
        )
        assert "15 working days" in reply.text
        button = next(
            e
            for b in reply.blocks
            if b["type"] == "actions"
            for e in b["elements"]
            if leave_file in str(e.get("value"))
        )
        click = button_click(
            slack_api, channel=HR_CHANNEL, message_ts=reply.ts, button=button, user=BOB
        )
        await bot.click(click)
        await slack_api.wait_until(lambda: bool(slack_api.ephemerals), within=10)
        page_url = f"{wikis.confluence.cloud_url}/spaces/HR/pages/{wikis.leave}"
        assert page_url in str(slack_api.ephemerals[-1].blocks)  # the button opens the page

        # The Feishu wiki page answers too, with its node's URL behind the citation.
        claim = await until_answered(
            bot, slack_api, CHANNEL, CLAIMS, lambda r: "feishu/员工手册/报销制度.md" in cited(r)
        )
        assert "5000" in claim.text

        # A scope of confluence/HR/** keeps the HR page out of the public channel.
        public = await ask(bot, slack_api, CHANNEL, LEAVE)
        assert leave_file not in cited(public)
        assert "15 working days" not in public.text
        deploys = await ask(bot, slack_api, CHANNEL, DEPLOYS)
        assert "confluence/ENG/Deploys.md" in cited(deploys)

        # An edit on the wiki is answered after the next sync.
        wikis.confluence.edit(wikis.leave, LEAVE_PAGE.replace("15 working", "20 working"))
        await until_answered(
            bot, slack_api, HR_CHANNEL, LEAVE, lambda r: "20 working days" in r.text
        )

        # A deleted page stops being cited.
        wikis.confluence.delete(wikis.leave)
        gone = await until_answered(
            bot, slack_api, HR_CHANNEL, LEAVE, lambda r: leave_file not in cited(r)
        )
        assert "working days" not in gone.text

        async with bot.http.get(f"{served.url}/healthz") as response:
            health = await response.json()
    by_name = {source["source"]: source for source in health["sources"]}
    assert by_name["wiki"]["last_sync"]["outcome"] == "ok"
    assert by_name["wiki"]["documents"] == 1  # the deploys page; the leave page was deleted
    assert by_name["handbook"]["documents"] == 1
    assert not (tmp_path / "docs" / leave_file).exists()
