"""Confluence storage XHTML -> Markdown, on a page as Confluence stores one."""

from __future__ import annotations

from rag.sync.confluence_markdown import storage_to_markdown

# A page as the Confluence editor saves it: nested lists, a table with a header row, a code
# macro with CDATA, panels, an expand, a task list, links to pages and URLs, emoticons,
# navigation macros and a macro from a marketplace app nobody told us about.
HANDBOOK = """\
<h1>出差报销制度</h1>
<p>本制度适用于<strong>全体员工</strong>。详见 <a href="https://hr.example.com/travel">差旅平台</a>
和 <ac:link><ri:page ri:content-title="费用标准" /><ac:plain-text-link-body><![CDATA[费用标准页]]></ac:plain-text-link-body></ac:link>。</p>
<ac:structured-macro ac:name="toc" ac:schema-version="1"><ac:parameter ac:name="maxLevel">2</ac:parameter></ac:structured-macro>
<h2>申请流程</h2>
<ol>
  <li>在系统中提交申请<ol><li>填写目的地</li><li>填写<em>预计</em>费用</li></ol></li>
  <li><p>直属经理审批</p><ul><li>超过 5000 元需总监审批</li></ul></li>
</ol>
<h2>标准</h2>
<table><colgroup><col /><col /></colgroup><tbody>
<tr><th><p>级别</p></th><th><p>每晚住宿上限</p></th></tr>
<tr><td><p>经理</p></td><td><p>800 元</p></td></tr>
<tr><td><p>员工</p></td><td><p>500 元 | 一线城市 600 元</p></td></tr>
</tbody></table>
<ac:structured-macro ac:name="code" ac:schema-version="1"><ac:parameter ac:name="language">bash</ac:parameter><ac:plain-text-body><![CDATA[curl -X POST https://api.example.com/claims \\
  -d '{"amount": 120}'  # <not a tag>]]></ac:plain-text-body></ac:structured-macro>
<ac:structured-macro ac:name="warning"><ac:parameter ac:name="title">截止日期</ac:parameter><ac:rich-text-body><p>出差结束后 <strong>30 天</strong>内提交，逾期不予报销。</p></ac:rich-text-body></ac:structured-macro>
<ac:structured-macro ac:name="expand"><ac:parameter ac:name="title">常见问题</ac:parameter><ac:rich-text-body><p>发票抬头写公司全称。</p></ac:rich-text-body></ac:structured-macro>
<ac:structured-macro ac:name="panel"><ac:parameter ac:name="bgColor">#eee</ac:parameter><ac:rich-text-body><p>Panels carry content too.</p></ac:rich-text-body></ac:structured-macro>
<ac:task-list><ac:task><ac:task-id>1</ac:task-id><ac:task-status>complete</ac:task-status><ac:task-body>Book flights</ac:task-body></ac:task><ac:task><ac:task-id>2</ac:task-id><ac:task-status>incomplete</ac:task-status><ac:task-body>Submit receipts</ac:task-body></ac:task></ac:task-list>
<ac:structured-macro ac:name="acme-budget-widget"><ac:parameter ac:name="team">Sales</ac:parameter><ac:parameter ac:name="cap">12000</ac:parameter></ac:structured-macro>
<ac:structured-macro ac:name="acme-callout"><ac:rich-text-body><p>Body of an unknown macro.</p></ac:rich-text-body></ac:structured-macro>
<p>Ask <ac:emoticon ac:name="smile" ac:emoji-fallback=":)" /> in #travel. Status: <ac:structured-macro ac:name="status"><ac:parameter ac:name="title">APPROVED</ac:parameter></ac:structured-macro></p>
<ac:structured-macro ac:name="children" />
<hr />
<ac:image><ri:attachment ri:filename="map.png" /></ac:image>
"""  # noqa: E501 - a page as stored: one element a line


def test_a_real_looking_page_keeps_headings_lists_tables_code_links_and_content_macros() -> None:
    markdown = storage_to_markdown(HANDBOOK)

    assert markdown.startswith("# 出差报销制度\n\n")
    assert "本制度适用于**全体员工**。" in markdown
    assert "[差旅平台](https://hr.example.com/travel)" in markdown
    assert "和 费用标准页。" in markdown  # a link to a page keeps its text
    assert "## 申请流程" in markdown
    assert (
        "1. 在系统中提交申请\n   1. 填写目的地\n   2. 填写*预计*费用\n"
        "2. 直属经理审批\n   - 超过 5000 元需总监审批"
    ) in markdown
    assert (
        "| 级别 | 每晚住宿上限 |\n| --- | --- |\n| 经理 | 800 元 |\n"
        "| 员工 | 500 元 \\| 一线城市 600 元 |"
    ) in markdown
    assert (
        "```bash\ncurl -X POST https://api.example.com/claims \\\n"
        "  -d '{\"amount\": 120}'  # <not a tag>\n```"
    ) in markdown
    assert "> **Warning: 截止日期**\n>\n> 出差结束后 **30 天**内提交，逾期不予报销。" in markdown
    assert "**常见问题**\n\n发票抬头写公司全称。" in markdown
    assert "Panels carry content too." in markdown
    assert "- [x] Book flights\n- [ ] Submit receipts" in markdown
    assert "Status: [APPROVED]" in markdown
    assert "---" in markdown


def test_unknown_macros_are_kept_as_text_and_navigation_macros_are_dropped() -> None:
    markdown = storage_to_markdown(HANDBOOK)

    assert "[acme-budget-widget: team=Sales, cap=12000]" in markdown
    assert "Body of an unknown macro." in markdown
    assert "maxLevel" not in markdown  # toc: navigation only
    assert "children" not in markdown
    assert "map.png" not in markdown  # images have no text to answer from


def test_entities_and_whitespace_read_as_a_browser_shows_them() -> None:
    markdown = storage_to_markdown("<p>A&nbsp;&amp;&nbsp;B\n   over   lines &lt;x&gt;</p>")

    assert markdown == "A & B over lines <x>"


def test_code_keeps_its_backticks_inside_a_longer_fence() -> None:
    storage = (
        '<ac:structured-macro ac:name="code"><ac:plain-text-body>'
        "<![CDATA[echo ```not the end```]]></ac:plain-text-body></ac:structured-macro>"
    )

    assert storage_to_markdown(storage) == "````\necho ```not the end```\n````"


def test_a_table_without_header_cells_still_gets_a_header_row() -> None:
    storage = "<table><tbody><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></tbody></table>"

    assert storage_to_markdown(storage) == "| a | b |\n| --- | --- |\n| c |  |"
