"""Feishu docx blocks -> Markdown, on a document as the blocks API lists one."""

from __future__ import annotations

from typing import Any

from rag.sync.feishu_markdown import blocks_to_markdown


def run(content: str, **style: Any) -> dict[str, Any]:
    return {"text_run": {"content": content, "text_element_style": style}}


def block(block_id: str, kind: int, field: str, *children: str, **body: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"block_id": block_id, "block_type": kind, field: body}
    if children:
        data["children"] = list(children)
    return data


def elements(*runs: dict[str, Any]) -> dict[str, Any]:
    return {"elements": list(runs)}


# 员工手册 · 报销: the shape docx/v1/documents/{id}/blocks returns (flat, children by id).
DOCUMENT = [
    block("doc", 1, "page", "h1", "p1", "b1", "b2", "o1", "o2", "code", "tbl", "callout",
          "quote", "todo", "div", "h9", "img", "grid", "mystery", "empty",
          **elements(run("报销"))),
    block("h1", 3, "heading1", **elements(run("报销流程"))),
    block("p1", 2, "text", **elements(
        run("金额"),
        run("超过 5000 元", bold=True),
        run("需"),
        run("总监", italic=True, strikethrough=True),
        run("审批，运行 "),
        run("make claim", inline_code=True),
        run("，见"),
        run("制度全文", link={"url": "https%3A%2F%2Fexample.feishu.cn%2Fwiki%2Fabc"}),
        {"mention_doc": {"title": "费用标准", "url": "https%3A%2F%2Fexample.feishu.cn%2Fdocx%2Fx"}},
        {"equation": {"content": "a+b "}},
    )),
    block("b1", 12, "bullet", "b11", **elements(run("发票"))),
    block("b11", 12, "bullet", "b111", **elements(run("增值税专票"))),
    block("b111", 13, "ordered", **elements(run("抬头写全称"))),
    block("b2", 12, "bullet", **elements(run("行程单"))),
    block("o1", 13, "ordered", **elements(run("提交"))),
    block("o2", 13, "ordered", **elements(run("审批"))),
    block("code", 14, "code", style={"language": 49},
          elements=[run("def total(items):\n"), run("    return sum(items)", bold=True)]),
    block("tbl", 31, "table", cells=["c1", "c2", "c3", "c4", "c5", "c6"],
          property={"row_size": 3, "column_size": 2}),
    block("c1", 32, "table_cell", "t1"), block("t1", 2, "text", **elements(run("级别"))),
    block("c2", 32, "table_cell", "t2"), block("t2", 2, "text", **elements(run("上限"))),
    block("c3", 32, "table_cell", "t3"), block("t3", 2, "text", **elements(run("经理"))),
    block("c4", 32, "table_cell", "t4"), block("t4", 2, "text", **elements(run("800 元"))),
    block("c5", 32, "table_cell", "t5"), block("t5", 2, "text", **elements(run("员工"))),
    block("c6", 32, "table_cell", "t6", "t7"),
    block("t6", 2, "text", **elements(run("500 元"))),
    block("t7", 2, "text", **elements(run("一线城市 600 元"))),
    block("callout", 19, "callout", "ct", background_color=2),
    block("ct", 2, "text", **elements(run("30 天内提交"))),
    block("quote", 34, "quote_container", "qt"),
    block("qt", 2, "text", **elements(run("财务部"))),
    block("todo", 17, "todo", style={"done": True}, elements=[run("订机票")]),
    block("div", 22, "divider"),
    block("h9", 11, "heading9", **elements(run("附录"))),
    block("img", 27, "image", token="boxcnimage", width=100),
    block("grid", 24, "grid", "col1", "col2", column_size=2),
    block("col1", 25, "grid_column", "g1"), block("g1", 2, "text", **elements(run("左栏"))),
    block("col2", 25, "grid_column", "g2"), block("g2", 2, "text", **elements(run("右栏"))),
    block("mystery", 40, "add_ons", record=elements(run("插件里的文字"))),
    block("empty", 41, "okr"),
]  # fmt: skip


def test_a_real_looking_document_keeps_its_structure() -> None:
    markdown = blocks_to_markdown(DOCUMENT)

    assert markdown.startswith("# 报销流程\n\n")
    assert (
        "金额**超过 5000 元**需~~*总监*~~审批，运行 `make claim`，见"
        "[制度全文](https://example.feishu.cn/wiki/abc)"
        "[费用标准](https://example.feishu.cn/docx/x)$a+b$"
    ) in markdown
    assert "- 发票\n  - 增值税专票\n    1. 抬头写全称\n- 行程单" in markdown
    assert "1. 提交\n2. 审批" in markdown
    assert "```python\ndef total(items):\n    return sum(items)\n```" in markdown  # no ** in code
    assert (
        "| 级别 | 上限 |\n| --- | --- |\n| 经理 | 800 元 |\n| 员工 | 500 元; 一线城市 600 元 |"
    ) in markdown
    assert "> 30 天内提交" in markdown
    assert "> 财务部" in markdown
    assert "- [x] 订机票" in markdown
    assert "\n---\n" in markdown
    assert "###### 附录" in markdown  # heading 9: Markdown's deepest level
    assert "左栏\n\n右栏" in markdown
    assert "boxcnimage" not in markdown


def test_block_types_it_does_not_know_keep_their_text_or_say_what_was_there() -> None:
    markdown = blocks_to_markdown(DOCUMENT)

    assert "插件里的文字" in markdown
    assert "[unsupported block: 41]" in markdown


def test_blocks_listed_without_a_page_block_start_from_the_top_level() -> None:
    orphans = [
        {**block("a", 2, "text", "a1", **elements(run("first"))), "parent_id": "gone"},
        {**block("a1", 12, "bullet", **elements(run("inside"))), "parent_id": "a"},
        {**block("b", 2, "text", **elements(run("second"))), "parent_id": "gone"},
    ]

    assert blocks_to_markdown(orphans) == "first\n\n- inside\n\nsecond"
