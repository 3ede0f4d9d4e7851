"""The top passages kept diverse: a near-copy once, no section taking every slot, the best first."""

from __future__ import annotations

from rag.chunks import Chunk
from rag.ingest.documents import SourceDocument
from rag.ingest.loaders import load_folder
from rag.results import Hit
from rag.search.build import index_documents
from rag.search.diverse import PER_SECTION, diverse
from rag.search.embeddings import HashingEmbeddings
from tests.scenarios.harness import DOCS

ANNUAL = "员工累计工作已满 1 年不满 10 年的，每年享有带薪年假 5 天；已满 10 年的，年假 10 天。"


def hit(text: str, *, source: str, section: int = 0, n: int = 0, score: float = 1.0) -> Hit:
    return Hit(Chunk(source=source, text=text, n=n, section=section), score=score)


def test_a_near_copy_of_a_kept_passage_is_left_out() -> None:
    hits = [
        hit(ANNUAL, source="leave/annual.md", score=2.0),
        hit(ANNUAL.replace("5 天", "5天"), source="leave/faq.md", score=1.9),  # pasted in a FAQ
        hit("病假期间按本人月基本工资的 80% 支付病假工资。", source="leave/sick.md", score=1.0),
    ]
    kept = diverse(hits, 2)
    assert [h.chunk.source for h in kept] == ["leave/annual.md", "leave/sick.md"]


def test_a_copy_that_states_another_number_is_kept_as_the_other_rule_it_is() -> None:
    # Another page's copy with 7 where the first says 5: a version or a conflict, which the
    # answer (and the conflict check) must see.
    hits = [
        hit(ANNUAL, source="leave/annual.md", score=2.0),
        hit(ANNUAL.replace("5 天", "7 天"), source="admin/handbook.md", score=1.9),
        hit("病假期间按本人月基本工资的 80% 支付病假工资。", source="leave/sick.md", score=1.0),
    ]
    kept = diverse(hits, 2)
    assert [h.chunk.source for h in kept] == ["leave/annual.md", "admin/handbook.md"]


def test_neighbouring_passages_of_a_section_are_not_copies() -> None:
    """Passages of one section overlap by about a fifth: both stay."""
    text = "婚假 3 天，须在领取结婚证后一年内休完。" * 6
    hits = [
        hit(text, source="leave/marriage.md", n=0, score=2.0),
        hit(
            text[len(text) // 5 :] + "丧假 3 天，路程假最多 2 天。" * 5,
            source="leave/marriage.md",
            n=1,
        ),
    ]
    assert len(diverse(hits, 2)) == 2


def test_one_section_takes_at_most_its_share_while_others_are_left() -> None:
    own = [
        hit(f"年假规则第 {n} 条：{'年假' * n}。", source="leave/annual.md", n=n, score=5.0 - n)
        for n in range(5)
    ]
    others = [
        hit("病假须提交诊断证明。", source="leave/sick.md", score=0.5),
        hit("婚假 3 天。", source="leave/marriage.md", score=0.4),
    ]
    kept = diverse(own + others, 5)
    sources = [h.chunk.source for h in kept]
    assert sources.count("leave/annual.md") == PER_SECTION
    assert {"leave/sick.md", "leave/marriage.md"} <= set(sources)
    assert kept[0].chunk == own[0].chunk  # the gate's passage stays first
    assert [h.rank for h in kept] == [1, 2, 3, 4, 5]
    assert [h.score for h in kept] == sorted((h.score for h in kept), reverse=True)


def test_a_section_fills_the_slots_nothing_else_can() -> None:
    own = [
        hit(f"年假规则第 {n} 条：{'年假' * n}。", source="leave/annual.md", n=n, score=5.0 - n)
        for n in range(5)
    ]
    assert len(diverse(own, 5)) == 5
    assert len(diverse(own, 5, per_section=1)) == 5


def test_search_keeps_the_best_passage_first_for_every_question() -> None:
    """The refusal gate compares the first hit with the threshold: diversity never changes it."""
    docs, _ = load_folder(DOCS)
    index = index_documents(docs, embeddings=HashingEmbeddings())
    for question in (
        "退费怎么算？",
        "年假有几天？",
        "How often must I change my password?",
        "火星上的天气怎么样？",
    ):
        assert index.search(question, 5)[0] == index.ranked(question, 1)[0]


_CLAUSES = (
    "年假须提前三个工作日申请",
    "年假按工龄分档",
    "年假可以分次休",
    "未休年假可结转至次年三月",
    "年假期间工资照发",
    "试用期不享受年假",
    "年假由直属上级审批",
    "连续年假五天以上须部门负责人审批",
    "离职时未休年假按日工资折算",
    "年假不得跨年累计超过五天",
)


def _annual_section() -> str:
    """One long section about 年假 whose passages differ (no two are near-copies)."""
    paragraphs = []
    for n in range(60):
        clause = _CLAUSES[n % len(_CLAUSES)]
        paragraphs.append(
            f"第{n + 1}条（{n * 7919 % 10007:05d}号文 {n * 104729 % 99991:05d}）：{clause}。"
        )
    return "\n\n".join(paragraphs)


def test_search_spreads_over_sections_when_one_section_matches_most() -> None:
    index = index_documents(
        [
            SourceDocument(
                source="leave/annual.md", title="年假", text=f"# 年假\n\n{_annual_section()}"
            ),
            SourceDocument(
                source="leave/sick.md",
                title="病假",
                text="# 病假\n\n病假与年假分开计算，病假须提交诊断证明。",
            ),
            SourceDocument(
                source="leave/marriage.md",
                title="婚假",
                text="# 婚假\n\n婚假不占用年假，婚假 3 天。",
            ),
        ],
        embeddings=HashingEmbeddings(),
    )
    ranked = [h.chunk.source for h in index.ranked("年假怎么申请", 5)]
    searched = [h.chunk.source for h in index.search("年假怎么申请", 5)]
    assert ranked.count("leave/annual.md") > PER_SECTION  # by score alone: one section's
    assert searched.count("leave/annual.md") == PER_SECTION
    assert searched[0] == ranked[0]
