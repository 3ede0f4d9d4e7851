"""SCOPES_FILE on Feishu: chats (oc_…) and people (ou_…) as in Slack, a short reply where off."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.texts import NOT_ENABLED_HERE, SOURCE_NOT_HERE
from rag.search.index import Index
from tests.fakes.feishu_api import FakeFeishuApi, Message
from tests.fakes.feishu_events import Delivery
from tests.redis_area import RedisArea
from tests.scenarios.feishu_harness import (
    ALICE,
    GROUP,
    FeishuBot,
    buttons,
    start_feishu,
    value_of,
)

LEAVE = "How many days of annual leave do I get?"
HR_WORDS = ("hr/", "annual-leave", "attendance-and-overtime", "Annual Leave Policy")


def scopes_file(tmp_path: Path, *, group_listed: bool) -> Path:
    group = f'{GROUP} = "public"\n' if group_listed else ""
    path = tmp_path / "scopes.toml"
    path.write_text(
        '[scopes]\npublic = ["*.md", "it/**"]\nhr = ["hr/**"]\n\n'
        f'[channels]\n{group}\n[users]\n{ALICE} = ["hr", "public"]\n\n'
        '[defaults]\ndms = "public"\n',
        "utf-8",
    )
    return path


def shown(messages: list[Message]) -> str:
    return json.dumps([m.content for m in messages], ensure_ascii=False)


async def test_an_unlisted_group_gets_a_short_reply_and_no_answer(
    feishu: FakeFeishuApi, docs_index: Index, redis_area: RedisArea, tmp_path: Path
) -> None:
    scopes = scopes_file(tmp_path, group_listed=False)
    async with start_feishu(feishu, index=docs_index, redis=redis_area, scopes=scopes) as bot:
        question, _ = await bot.ask_group(LEAVE)
        [note] = await bot.replies(question)
    assert NOT_ENABLED_HERE["en"] in note.text
    assert not any(word in shown([note]) for word in HR_WORDS)


async def test_the_hr_persons_p2p_chat_gets_hr_and_the_public_group_does_not(
    feishu: FakeFeishuApi, docs_index: Index, redis_area: RedisArea, tmp_path: Path
) -> None:
    scopes = scopes_file(tmp_path, group_listed=True)
    async with start_feishu(feishu, index=docs_index, redis=redis_area, scopes=scopes) as bot:
        private, _ = await bot.ask_p2p(LEAVE)
        [in_p2p] = await bot.replies(private)
        public, _ = await bot.ask_group(LEAVE)
        [in_group] = await bot.replies(public)
        hr_button = next(
            b for b in buttons(in_p2p) if value_of(b)["k"] == "source" and "hr/" in value_of(b)["c"]
        )
        delivery = await click_in_group(bot, in_group, value_of(hr_button))
    assert any(word in shown([in_p2p]) for word in HR_WORDS)
    assert not any(word in shown([in_group]) for word in HR_WORDS)
    assert SOURCE_NOT_HERE["zh"] in json.dumps(delivery.body, ensure_ascii=False)


async def click_in_group(bot: FeishuBot, message: Message, value: dict[str, Any]) -> Delivery:
    """The HR citation button's value, clicked in the public group (a forwarded card)."""
    return await bot.click(message, value, user=ALICE)
