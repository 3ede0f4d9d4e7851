"""A tiny knowledge base for pipeline-level fault tests, and a clock that moves only on sleep."""

from __future__ import annotations

from rag.ingest.documents import SourceDocument
from rag.search.build import index_documents
from rag.search.embeddings import HashingEmbeddings
from rag.search.index import Index

LEVELS = """# 课程体系

## 一、级别设置

口语课共分四个级别：入门级、进阶级、流利级、商务级。每个级别 16 课时，每课时 45 分钟。
"""
REFUND = """# 退费与转班制度

## 三、退费计算口径

退费金额 = 已付金额 × 剩余课时 ÷ 总课时 − 手续费。手续费为可退金额的 5%，最低 50 元。
"""
LEAVE = """# Annual leave

Full-time employees receive 20 days of paid annual leave per year.
"""
DOCS = (
    SourceDocument(source="courses/levels.md", text=LEVELS, title="课程体系"),
    SourceDocument(source="policies/refund.md", text=REFUND, title="退费与转班制度"),
    SourceDocument(source="hr/leave.md", text=LEAVE, title="Annual leave"),
)
IN_KB = "口语课一共有几级？"
OUT_OF_KB = "公司的健身房几点开门？"
CITED = "口语课共分四个级别[1]。"


def small_index() -> Index:
    return index_documents(DOCS, embeddings=HashingEmbeddings())


def threshold(index: Index) -> float:
    """Half way between the in-KB and the out-of-KB question's best scores."""
    return (index.search(IN_KB, 3)[0].score + index.search(OUT_OF_KB, 3)[0].score) / 2
