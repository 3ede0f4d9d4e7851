"""The splitter's promises: chunks re-locate exactly, lose no visible text, overlap, keep headings.

Citations show a chunk as "the document says this", so a chunk must be a verbatim slice of its
section at ``start`` and together the chunks must cover every visible character.
"""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pytest

from rag.chunks import Chunk
from rag.ingest.documents import SourceDocument
from rag.ingest.loaders import load_folder
from rag.ingest.splitter import Splitter, section_texts

SAMPLE_DOCS = Path(__file__).resolve().parents[3] / "docs"
SIZES = [(300, 50), (100, 20), (40, 10), (20, 5)]

_SUBJECTS = ["学员", "助教", "课程顾问", "教务部", "任课老师"]
_ACTIONS = ["可以申请", "需要提交", "应当确认", "负责安排", "不得拒绝"]
_OBJECTS = ["退费", "转班", "补课", "分级测试", "结业口试", "请假"]
_JOINS = ["", "", "", "\n", "\n\n", " ", "\n- ", "\n\n  "]


def generated_doc(seed: int) -> SourceDocument:
    """Policy-like Markdown with unique sentences (zh and en), lists, rules, a fence, a long run."""
    rng = random.Random(seed)
    parts = ["# 退费与转班制度\n\n"]
    for number in range(rng.randint(5, 60)):
        if rng.random() < 0.3:
            parts.append(f"Rule {number} applies to {rng.choice(['staff', 'students'])}. ")
        else:
            punct = rng.choice("。！？；，")
            parts.append(
                f"第{number}条{rng.choice(_SUBJECTS)}{rng.choice(_ACTIONS)}"
                f"{rng.choice(_OBJECTS)}{punct}"
            )
        parts.append(rng.choice(_JOINS))
        if rng.random() < 0.05:
            parts.append(f"\n\n## {number}、补充说明 ##\n\n")
        if rng.random() < 0.03:
            parts.append("\n\n---\n\n")
        if rng.random() < 0.03:
            parts.append(f"\n\n```\nrefund = paid * {number} / 16\n```\n\n")
    if seed % 3 == 0:
        parts.append("很长的一段没有任何标点" + "".join(chr(0x4E00 + i) for i in range(seed * 7)))
    return SourceDocument(source=f"gen/{seed}.md", text="".join(parts), title="退费与转班制度")


def sample_docs() -> list[SourceDocument]:
    return load_folder(SAMPLE_DOCS)[0]


def corpus() -> list[SourceDocument]:
    return sample_docs() + [generated_doc(seed) for seed in range(40)]


def sections_of(doc: SourceDocument) -> list[str]:
    return [text for _, text in section_texts(doc)]


def uncovered(text: str, chunks: list[Chunk]) -> list[int]:
    covered = [False] * len(text)
    for chunk in chunks:
        for position in range(chunk.start, chunk.start + len(chunk.text)):
            covered[position] = True
    return [i for i, char in enumerate(text) if not char.isspace() and not covered[i]]


@pytest.mark.parametrize(("size", "overlap"), SIZES)
def test_each_chunk_is_the_exact_substring_of_its_section_at_start(size: int, overlap: int) -> None:
    splitter = Splitter(size, overlap)
    for doc in corpus():
        sections = sections_of(doc)
        for chunk in splitter.split(doc):
            section = sections[chunk.section]
            assert section[chunk.start : chunk.start + len(chunk.text)] == chunk.text, chunk.id
            assert chunk.text == chunk.text.strip()


@pytest.mark.parametrize(("size", "overlap"), SIZES)
def test_no_visible_text_of_a_section_is_lost(size: int, overlap: int) -> None:
    splitter = Splitter(size, overlap)
    for doc in corpus():
        chunks = splitter.split(doc)
        for index, section in enumerate(sections_of(doc)):
            mine = [chunk for chunk in chunks if chunk.section == index]
            lost = uncovered(section, mine)
            assert not lost, (doc.source, index, section[lost[0] : lost[0] + 20])


@pytest.mark.parametrize(("size", "overlap"), SIZES)
def test_chunks_never_exceed_chunk_size(size: int, overlap: int) -> None:
    splitter = Splitter(size, overlap)
    assert max(len(chunk.text) for doc in corpus() for chunk in splitter.split(doc)) <= size


@pytest.mark.parametrize(("size", "overlap"), SIZES)
def test_neighbours_in_a_section_overlap_or_touch(size: int, overlap: int) -> None:
    splitter = Splitter(size, overlap)
    for doc in corpus():
        sections = sections_of(doc)
        chunks = splitter.split(doc)
        for before, after in itertools.pairwise(chunks):
            if before.section != after.section:
                continue
            end = before.start + len(before.text)
            assert after.start > before.start
            assert not sections[before.section][end : after.start].strip(), (before.id, after.id)


def test_neighbours_share_whole_sentences_up_to_the_overlap() -> None:
    # Sentences shorter than the overlap: each next chunk repeats the previous one's last ones.
    sentences = [f"第{number:02d}条学员可以申请补课。" for number in range(40)]
    doc = SourceDocument(source="rules.md", text="# 补课\n\n" + "".join(sentences))
    chunks = Splitter(60, 25).split(doc)
    assert len(chunks) > 5
    for before, after in itertools.pairwise(chunks):
        shared = before.start + len(before.text) - after.start
        assert 0 < shared <= 25
        assert before.text.endswith(after.text[:shared])
        assert after.text[:shared].endswith("。")


def test_chinese_without_spaces_splits_at_sentence_ends() -> None:
    rng = random.Random(5)
    sentences = [
        f"第{number}条{rng.choice(_SUBJECTS)}{rng.choice(_ACTIONS)}{rng.choice(_OBJECTS)}"
        f"{'。！？'[number % 3]}"
        for number in range(60)
    ]
    text = "".join(sentences)
    doc = SourceDocument(source="rules.md", text=text)
    chunks = Splitter(80, 20).split(doc)
    assert len(chunks) > 5
    starts = {match.start() for match in re.finditer(r"第\d+条", text)}
    for chunk in chunks:
        assert chunk.text[-1] in "。！？", chunk.text
        assert chunk.start in starts, chunk.text


def test_heading_path_is_metadata_not_chunk_text() -> None:
    text = (
        "# 退费与转班制度\n\n本制度适用于所有学员。\n\n"
        "## 三、退费计算口径 ##\n\n退费金额 = 实付课程费 ×（剩余课时 ÷ 总课时）− 手续费。\n\n"
        "### 计算示例一\n\n4800 × 12 ÷ 16 = 3600 元。\n"
    )
    doc = SourceDocument(source="policies/refund.md", text=text, title="退费", link="https://x")
    chunks = Splitter().split(doc)
    assert [chunk.heading for chunk in chunks] == [
        ("退费与转班制度",),
        ("退费与转班制度", "三、退费计算口径"),
        ("退费与转班制度", "三、退费计算口径", "计算示例一"),
    ]
    assert chunks[1].heading_path == "退费与转班制度 › 三、退费计算口径"
    for chunk in chunks:
        assert "#" not in chunk.text
        assert chunk.heading[-1] not in chunk.text
        assert (chunk.source, chunk.title, chunk.link) == (
            "policies/refund.md",
            "退费",
            "https://x",
        )


def test_numbering_is_continuous_from_zero_across_sections() -> None:
    for doc in corpus():
        chunks = Splitter(40, 10).split(doc)
        assert [chunk.n for chunk in chunks] == list(range(len(chunks)))
        assert [chunk.id for chunk in chunks] == [f"{doc.source}#{n}" for n in range(len(chunks))]
        sections = [chunk.section for chunk in chunks]
        assert sections == sorted(sections)


def test_splitting_is_deterministic() -> None:
    doc = generated_doc(7)
    assert Splitter(40, 10).split(doc) == Splitter(40, 10).split(doc)


@pytest.mark.parametrize(
    ("size", "overlap", "message"),
    [
        (100, 100, "chunk_overlap (100) must be smaller than chunk_size (100)"),
        (50, 80, "chunk_overlap (80) must be smaller than chunk_size (50)"),
        (0, 10, "chunk_size (0) must be greater than 0"),
        (-5, 1, "chunk_size (-5) must be greater than 0"),
        (100, 0, "chunk_overlap (0) must be greater than 0"),
        (100, -1, "chunk_overlap (-1) must be greater than 0"),
    ],
)
def test_invalid_sizes_are_refused_at_construction_with_the_values(
    size: int, overlap: int, message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        Splitter(size, overlap)


def test_repeated_sentence_keeps_its_own_offset() -> None:
    text = "第一条规则很长很长很长很长很长很长。\n同一句。\n\n同一句。\n\n另一条规则完全不同。"
    doc = SourceDocument(source="dup.md", text=text)
    [section] = sections_of(doc)
    chunks = Splitter(30, 8).split(doc)
    # "同一句。" ends the first chunk and starts the second: the second is the later copy.
    assert chunks[1].text.startswith("同一句。")
    assert chunks[1].start == text.rindex("同一句。")
    assert not uncovered(section, chunks)


HEADER = "| 名称 | 类型 | 必选项 | 默认值 | 描述 |\n| --- | --- | --- | --- | --- |"
ROW = "| key_{i} | integer | 否 | {d} | 第 {i} 个属性的说明，写得足够长以便表格跨越多个段落。 |\n"
TABLE_PAGE = (
    "## 属性\n\n下表列出插件的属性。\n\n"
    + HEADER
    + "\n"
    + "".join(ROW.format(i=i, d=i * 10) for i in range(12))
)


def test_a_passage_starting_inside_a_table_carries_its_header_row() -> None:
    chunks = Splitter(chunk_size=300, chunk_overlap=60).split(
        SourceDocument(source="plugin.md", text=TABLE_PAGE)
    )
    assert len(chunks) >= 3
    [first] = [c for c in chunks if "| 名称 | 类型" in c.text]
    assert first.table_head == ""  # the header is in its own text
    rest = chunks[chunks.index(first) + 1 :]
    header = HEADER
    later = [c for c in rest if c.text.startswith("| key_")]
    assert later, "the table spans several passages"
    for chunk in later:
        assert "| 名称 |" not in chunk.text  # text stays the exact substring
        assert chunk.table_head == header
        assert chunk.readable_text.startswith(header + "\n| key_")
        assert "默认值" in chunk.indexed_text  # its column names are searched with it
        assert header in chunk.text_with_headings  # and read by the checker


def test_a_passage_after_a_table_has_no_table_head() -> None:
    page = TABLE_PAGE + "\n表格之后的一段普通文字，讲别的事情。" * 8
    chunks = Splitter(chunk_size=300, chunk_overlap=60).split(
        SourceDocument(source="plugin.md", text=page)
    )
    assert not chunks[-1].text.startswith("|")
    assert chunks[-1].table_head == ""
