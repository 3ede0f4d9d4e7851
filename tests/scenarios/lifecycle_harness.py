"""A small knowledge base with a superseded page, a lapsed notice and two current pages that
disagree, for the lifecycle scenarios on Slack and Feishu.

Each page is read as the product reads a Markdown file (front matter, then the first-line
notice: :func:`rag.ingest.lifecycle.read_lifecycle`), then indexed with the test-speed
embeddings. The threshold sits between the weakest of the three questions below and a
question the pages do not answer.
"""

from __future__ import annotations

from rag.ingest.documents import SourceDocument
from rag.ingest.lifecycle import read_lifecycle
from rag.ingest.markdown import read_markdown
from rag.search.build import index_documents
from rag.search.embeddings import HashingEmbeddings
from rag.search.index import Index

TRAVEL_2023 = """---
title: 差旅费报销办法（2023版）
status: superseded
superseded_by: travel/2025.md
updated: 2023-02-20
---
# 差旅费报销办法（2023版）

## 住宿标准

一线城市住宿费每晚上限 450 元，超出部分由员工自行承担。
"""
TRAVEL_2025 = """---
title: 差旅费报销办法（2025版）
updated: 2024-12-18
---
# 差旅费报销办法（2025版）

## 住宿标准

一线城市住宿费每晚上限 600 元，超出部分由员工自行承担。
"""
PHONE = """# 通讯补贴标准

本制度自2024年7月1日起废止。

## 补贴标准

销售岗位员工每月发放通讯补贴 200 元，随当月工资发放。
"""
ROOMS = """---
title: 会议室预订规则
updated: 2025-08-12
---
# 会议室预订规则

## 预订方式

会议室统一在行政系统中预订，最多可提前 14 天预订。
"""
HANDBOOK = """---
title: 行政服务手册
updated: 2024-05-30
---
# 行政服务手册

## 会议室

会议室统一在行政系统中预订，最多可提前 7 天预订。
"""

CURRENT_QUESTION = "一线城市住宿每晚上限多少钱？"
LAPSED_QUESTION = "通讯补贴每月发多少？"
CONFLICT_QUESTION = "会议室最多可以提前几天预订？"
OUT_OF_KB = "公司的健身房几点开门？"


def _document(source: str, text: str) -> SourceDocument:
    meta, body = read_markdown(text)
    title = meta.get("title") or body.splitlines()[0].lstrip("# ")
    life = read_lifecycle(meta, body, title=title, file_time=1_700_000_000.0)
    return SourceDocument(source=source, text=body, title=title, lifecycle=life)


DOCUMENTS = [
    _document("travel/2023.md", TRAVEL_2023),
    _document("travel/2025.md", TRAVEL_2025),
    _document("hr/phone.md", PHONE),
    _document("admin/rooms.md", ROOMS),
    _document("admin/handbook.md", HANDBOOK),
]
INDEX: Index = index_documents(DOCUMENTS, embeddings=HashingEmbeddings())


def _best(question: str) -> float:
    return INDEX.search(question, 3)[0].score


_WEAKEST = min(_best(q) for q in (CURRENT_QUESTION, LAPSED_QUESTION, CONFLICT_QUESTION))
THRESHOLD = (_WEAKEST + _best(OUT_OF_KB)) / 2
assert _best(OUT_OF_KB) < THRESHOLD < _WEAKEST
