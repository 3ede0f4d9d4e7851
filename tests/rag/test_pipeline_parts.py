"""Questions that span documents through the pipeline: a passage gathered for each part, each
part answered with its own citation, no total the sources don't state — offline and with a model."""

from __future__ import annotations

import re

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from rag.cache.answers import MemoryCache
from rag.generate.extractive import ExtractiveChatModel
from rag.generate.llm import Generator
from rag.generate.retry import RetryPolicy
from rag.ingest.documents import SourceDocument
from rag.parts import parts_of
from rag.pipeline import Pipeline
from rag.results import Answer, Unverified
from rag.search.build import index_documents
from rag.search.embeddings import HashingEmbeddings
from rag.search.gather import EXTRA_FOR_LISTS, gather
from rag.search.index import Index
from tests.fakes.chat_model import ScriptedChatModel

TRAVEL = """# 差旅管理制度

## 一、出差审批

员工出差须在出发前通过 OA 系统提交出差申请，由部门负责人审批；出差超过 5 天的，还须分管副总裁审批。

## 二、交通标准

乘坐火车的，可乘坐高铁二等座；单程超过 6 小时的，经部门负责人批准可乘坐飞机经济舱。

## 三、住宿标准

一线城市住宿费上限为每晚 600 元，其他城市每晚 400 元。
"""
OVERTIME = """# 考勤与加班管理规定

## 一、打卡

员工每日上下班须打卡，漏打卡的须在 2 个工作日内补卡。

## 二、加班审批

加班须事先在 OA 系统提交加班申请，由直属上级审批；每月加班超过 36 小时的，须人力资源部审批。
"""
LEAVES = {
    "leave/annual.md": ("年休假管理办法", "员工工作满 1 年的，每年享有带薪年假 5 天。"),
    "leave/sick.md": ("病假管理规定", "病假期间，公司按月基本工资的 80% 支付病假工资。"),
    "leave/marriage.md": ("婚假规定", "员工依法登记结婚的，可享受婚假 3 天。"),
    "leave/bereavement.md": ("丧假规定", "直系亲属去世的，可享受丧假 3 天。"),
}
"""Each kind of leave on a page of its own: (title, its rule)."""


@pytest.fixture(scope="module")
def index() -> Index:
    docs = [
        SourceDocument(source="admin/travel.md", text=TRAVEL, title="差旅管理制度"),
        SourceDocument(source="admin/attendance.md", text=OVERTIME, title="考勤与加班管理规定"),
        *(
            SourceDocument(source=path, text=f"# {title}\n\n{rule}\n")
            for path, (title, rule) in LEAVES.items()
        ),
    ]
    return index_documents(docs, embeddings=HashingEmbeddings())


def pipeline(index: Index, model: object = None) -> Pipeline:
    chat = model if model is not None else ExtractiveChatModel()
    return Pipeline(
        index=index,
        generator=Generator(chat, RetryPolicy()),  # type: ignore[arg-type]
        cache=MemoryCache(),
        min_score=-10.0,
        warm_checker=False,
    )


def test_each_compared_thing_gets_its_own_passage(index: Index) -> None:
    parts = parts_of("出差和加班各需要谁审批？")
    assert parts is not None
    hits = gather(index, "出差和加班各需要谁审批？", parts, 3)
    headings = {h.chunk.heading[-1] for h in hits}
    assert {"一、出差审批", "二、加班审批"} <= headings
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


def test_a_list_gathers_one_passage_per_section_with_extra_slots(index: Index) -> None:
    parts = parts_of("一共有几类假期？")
    assert parts is not None
    hits = gather(index, "一共有几类假期？", parts, 3)
    sections = [(h.chunk.source, h.chunk.section) for h in hits]
    assert len(sections) == len(set(sections))
    assert len(hits) <= 3 + EXTRA_FOR_LISTS
    assert set(LEAVES) <= {h.chunk.source for h in hits}


async def test_an_ordinary_question_is_retrieved_as_before(index: Index) -> None:
    for question in ("加班需要谁审批？", "住宿费上限是多少？", "病假工资怎么算？"):
        assert await pipeline(index).retrieve(question) == index.search(question, 5)


async def test_the_offline_answer_cites_each_part_from_its_own_page(index: Index) -> None:
    result = await pipeline(index).answer("出差和加班各需要谁审批？")
    assert isinstance(result, Answer)
    sources = {n: hit.chunk.source for n, hit in enumerate(result.hits, start=1)}
    by_name = {
        name: {
            sources[int(n)]
            for line in result.text.splitlines()
            if name in line
            for n in re.findall(r"\[(\d+)\]", line)
        }
        for name in ("部门负责人", "直属上级")
    }
    assert by_name == {"部门负责人": {"admin/travel.md"}, "直属上级": {"admin/attendance.md"}}


async def test_a_model_is_asked_for_each_part_and_an_invented_total_goes_to_review(
    index: Index,
) -> None:
    model = ScriptedChatModel(replies=["公司一共有六类假期[1]。年假每年 5 天[1]。"])
    result = await pipeline(index, model).answer("一共有几类假期？")
    system, *_, asked = model.prompts[0]
    assert isinstance(system, SystemMessage)
    assert "Never state how many there are in all" in " ".join(system.text.split())
    assert isinstance(asked, HumanMessage)
    assert "name each with its citation" in asked.text
    assert isinstance(result, Unverified)  # no source says 六
