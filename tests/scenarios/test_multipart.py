"""A question whose parts are on different pages ("一共有几类假期？": each kind of leave has a
policy page of its own), asked in Slack and in Feishu: the answer names each kind with the
citation of its own page (the buttons show which), and claims no total the pages don't state."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rag.ingest.loaders import load_folder
from rag.search.build import index_documents
from rag.search.embeddings import HashingEmbeddings
from rag.search.index import Index
from tests.fakes.feishu_api import FakeFeishuApi
from tests.fakes.slack_api import FakeSlackApi
from tests.redis_area import RedisArea
from tests.scenarios.feishu_harness import buttons, start_feishu, value_of
from tests.scenarios.harness import TEST_MIN_SCORE, envelope, mention, start_bot

KB = Path(__file__).resolve().parents[2] / "bench" / "lifecycle" / "kb" / "multipart"
QUESTION = "一共有几类假期？"
PARTS = {
    "年假": "年休假管理办法",
    "病假": "病假管理规定",
    "婚假": "婚假规定",
    "产假": "产假与陪产假规定",
    "丧假": "丧假规定",
}
"""Each kind of leave and the title of its page."""


@pytest.fixture(scope="module")
def kb_index() -> Index:
    docs, _ = load_folder(KB)
    return index_documents(docs, embeddings=HashingEmbeddings())


def cited_by_part(text: str) -> dict[str, set[int]]:
    """For each part, the source numbers cited on the answer's lines that name it."""
    return {
        name: {
            int(n)
            for line in text.splitlines()
            if name in line and not line.lstrip().startswith("[")  # not a button's label
            for n in re.findall(r"\[(\d+)\]", line)
        }
        for name in PARTS
    }


def assert_each_part_cites_its_page(text: str, labels: dict[int, str]) -> None:
    """``labels``: each citation button's number and label ("婚假规定 · 婚假天数")."""
    cited = cited_by_part(text)
    for name, page in PARTS.items():
        pages = {labels[n].split(" · ")[0] for n in cited[name]}
        assert page in pages, (name, text)
    assert "资料里没有写总数" in text
    assert not re.search(r"[\d一二三四五六七八九十]+\s*(?:类|种)", text)  # no total invented


def _numbered(label: str) -> tuple[int, str]:
    number, _, rest = label.partition("] ")
    return int(number.lstrip("[")), rest


async def test_slack_names_each_part_with_its_own_citation(
    slack_api: FakeSlackApi, kb_index: Index
) -> None:
    async with start_bot(slack_api, index=kb_index, min_score=TEST_MIN_SCORE) as bot:
        await bot.send(envelope(mention(QUESTION)))
        await bot.idle()
    [reply] = slack_api.messages
    labels = dict(
        _numbered(str(element["text"]["text"]))
        for block in reply.blocks
        if block["type"] == "actions"
        for element in block["elements"]
    )
    assert_each_part_cites_its_page(reply.text, labels)


async def test_feishu_names_each_part_with_its_own_citation(
    feishu: FakeFeishuApi, kb_index: Index, redis_area: RedisArea
) -> None:
    async with start_feishu(
        feishu, index=kb_index, redis=redis_area, min_score=TEST_MIN_SCORE
    ) as bot:
        question, _ = await bot.ask_group(QUESTION)
        [answer] = await bot.replies(question)
    labels = dict(
        _numbered(str(b["text"]["content"]))
        for b in buttons(answer)
        if value_of(b)["k"] == "source"
    )
    assert_each_part_cites_its_page(answer.text, labels)
