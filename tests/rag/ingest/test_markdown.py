"""Documentation-site Markdown: metadata read as metadata, site markup gone, code untouched."""

from __future__ import annotations

from pathlib import Path

from rag.chunks import DENSE_TOKENS, Chunk
from rag.ingest.loaders import load_file
from rag.ingest.markdown import read_markdown, split_front_matter
from rag.ingest.splitter import Splitter

DOCUSAURUS = """---
title: limit-count
keywords:
  - API 网关
  - 速率限制
description: limit-count 插件使用固定窗口算法限制请求速率。
---

<!--
# Licensed to the Apache Software Foundation (ASF) under one
# limitations under the License.
-->

<head>
  <link rel="canonical" href="https://example.com/limit-count" />
</head>

import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';

## 属性 {#attributes}

:::note

默认使用固定窗口。

:::

<Tabs groupId="api">
<TabItem value="admin-api">

```yaml
# a comment inside code stays
window_type: "fixed"   # {{ not a template }} <b>kept</b>
```

</TabItem>
</Tabs>
"""

JEKYLL = """---
title: Leave types
keywords: vacation, funeral, jury duty
redirect_from:
  - /leave/
---

{% alert %}
  Use the [leave chart](https://docs.google.com/spreadsheets/d/1-dm0tptMsZ2/edit) first.
{% endalert %}

Before you leave, check [out of office]({% page "travel/out-of-office/" %}) and
ask in {% slack_channel "people-ops" %} or write to [hr@example.gov](mailto:hr@example.gov).
"""


def test_yaml_front_matter_is_metadata_never_body() -> None:
    meta, body = read_markdown(DOCUSAURUS)

    assert meta["title"] == "limit-count"
    assert meta["keywords"] == "API 网关, 速率限制"
    assert meta["description"].startswith("limit-count 插件")
    assert "keywords" not in body
    assert "description" not in body


def test_licence_comments_mdx_and_jsx_do_not_reach_passages() -> None:
    _, body = read_markdown(DOCUSAURUS)

    for markup in (
        "Licensed",
        "limitations under the License",
        "import Tabs",
        "<Tabs",
        "</Tab",
        "<head>",
        "canonical",
        ":::",
        "{#attributes}",
    ):
        assert markup not in body, markup
    assert "## 属性\n" in body
    assert "默认使用固定窗口。" in body


def test_fenced_code_is_kept_byte_for_byte() -> None:
    _, body = read_markdown(DOCUSAURUS)

    code = DOCUSAURUS[DOCUSAURUS.index("```yaml") : DOCUSAURUS.rindex("```") + 3]
    assert "{{ not a template }} <b>kept</b>" in code
    assert code in body


def test_template_tags_go_and_links_keep_their_text() -> None:
    _, body = read_markdown(JEKYLL)

    assert "{%" not in body
    assert "docs.google.com" not in body
    assert "Use the leave chart first." in body
    assert "check out of office and" in body
    assert "ask in people-ops or write to hr@example.gov." in body


def test_toml_front_matter_is_read_too() -> None:
    meta, body = split_front_matter(
        '+++\ntitle = "Expenses"\ntags = ["travel", "receipts"]\n+++\nBody\n'
    )

    assert meta == {"title": "Expenses", "tags": "travel, receipts"}
    assert body == "Body\n"


def test_a_rule_opening_the_text_is_not_front_matter() -> None:
    text = "---\nJust a paragraph between rules.\n---\nMore.\n"

    assert split_front_matter(text) == ({}, text)


def test_what_a_page_is_about_is_searched_with_every_passage_but_never_quoted(
    tmp_path: Path,
) -> None:
    page = tmp_path / "leave.md"
    page.write_text(JEKYLL, encoding="utf-8")

    doc = load_file(page, tmp_path)
    chunks = Splitter().split(doc)

    assert doc.title == "Leave types"
    assert chunks
    for chunk in chunks:
        assert "funeral" in chunk.indexed_text
        assert "funeral" not in chunk.text


def test_the_embedder_reads_a_passage_s_first_tokens_under_its_headings() -> None:
    long = "退费金额按实付课程费计算。" * 60
    chunk = Chunk(source="refund.md", text=long, n=0, heading=("退费",), title="制度")

    core = chunk.dense_text

    assert core.startswith("制度 › 退费\n退费金额")
    assert long.startswith(core.split("\n", 1)[1])
    assert DENSE_TOKENS - 10 <= len(core.split("\n", 1)[1]) <= DENSE_TOKENS
    short = Chunk(source="a.md", text="Passwords change yearly.", n=0)
    assert short.dense_text == "Passwords change yearly."


WRAPPED_LINKS = """Finally, don't forget to [stamp and submit for travel team
approval!]({% page "/travel/faq/#how-to-stamp-and-submit" %})
Your voucher will be reviewed in 3-5 business days.
See the [TWN guide [DOCX - 61 KB]](https://example.gov/g.docx) and
the \\[hiring
authorities]({% page "/hiring-authorities" %}).

\\*For vouchers, approval takes 3-5 days. Run `grep \\*.md` first.

| Key | Value |
| --- | --- |
| a\\|b | 1 |
"""


def test_a_link_whose_text_wraps_onto_the_next_line_keeps_only_its_text(tmp_path: Path) -> None:
    _, body = read_markdown(WRAPPED_LINKS)

    assert "stamp and submit for travel team\napproval!\nYour voucher" in body
    assert "TWN guide [DOCX - 61 KB] and\nthe hiring\nauthorities." in body
    for debris in ("](", "{%", "how-to-stamp", "example.gov", "\\["):
        assert debris not in body, debris
    page = tmp_path / "travel.md"
    page.write_text(WRAPPED_LINKS, encoding="utf-8")
    doc = load_file(page, tmp_path)
    chunks = Splitter(chunk_size=80, chunk_overlap=20).split(doc)
    assert chunks
    for chunk in chunks:
        assert "](" not in chunk.text
        assert chunk.text in doc.text, "passages stay exact substrings of the text read"


def test_backslash_escapes_read_as_the_character_outside_code_and_table_pipes() -> None:
    _, body = read_markdown(WRAPPED_LINKS)

    assert "\n*For vouchers, approval takes 3-5 days." in body
    assert "`grep \\*.md`" in body, "a code span keeps its backslash"
    assert "| a\\|b | 1 |" in body, "an escaped pipe stays: it is inside a cell"
