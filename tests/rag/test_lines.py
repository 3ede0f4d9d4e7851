"""One list/table-line grammar: the offline answerer and the checker read a line alike."""

from __future__ import annotations

import pytest

from rag.check.answer_text import sentences
from rag.check.table_rows import table_rows
from rag.generate.quotable import split_sentences
from rag.lines import is_list_item, is_table_header, is_table_rule, starts_block, without_marker


@pytest.mark.parametrize(
    ("line", "item", "plain"),
    [
        ("- 流利级 4800 元", True, "流利级 4800 元"),
        ("1. 流利级 4800 元", True, "流利级 4800 元"),
        ("1、流利级 4800 元", True, "流利级 4800 元"),
        ("（2）商务级 5600 元", True, "商务级 5600 元"),
        ("三、退费按剩余课时计算", True, "退费按剩余课时计算"),
        ("第二步：提交申请表", True, "提交申请表"),
        ("Step 2: submit the form", True, "submit the form"),
        ("3.5 小时的课程", False, "3.5 小时的课程"),
        ("**计算** 按课时", False, "**计算** 按课时"),
    ],
)
def test_answerer_and_checker_read_a_list_item_alike(line: str, item: bool, plain: str) -> None:
    assert is_list_item(line) is item
    assert split_sentences(line) == [plain]
    assert [s.plain for s in sentences(line)] == [plain]
    assert [s.item for s in sentences(line)] == [item]


@pytest.mark.parametrize("rule", ["| --- | --- |", "|--|--|", "| :---: | ---: |", "---|---"])
def test_a_table_rule_is_one_for_every_reader(rule: str) -> None:
    table = f"| 级别 | 费用 |\n{rule}\n| 流利级 | 4800 元 |"
    lines = table.splitlines()
    assert is_table_rule(rule)
    assert is_table_header(lines, 0)
    assert sentences(table)[0].header  # the checker: a label, not a claim
    assert [row.label for rows in table_rows(table) for row in rows] == ["流利级"]


@pytest.mark.parametrize("line", ["---", "- item", "a - b", "| 流利级 | 4800 元 |"])
def test_other_lines_are_not_table_rules(line: str) -> None:
    assert not is_table_rule(line)


@pytest.mark.parametrize(
    ("line", "block"),
    [("> 引用", True), ("## 退费", True), ("| a | b |", True), ("#5 号楼", False), ("正文", False)],
)
def test_blocks_start_at_items_quotes_rows_and_headings(line: str, block: bool) -> None:
    assert starts_block(line) is block


def test_a_marker_is_removed_once() -> None:
    assert without_marker("> - 流利级") == "- 流利级"
