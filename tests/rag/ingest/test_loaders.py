"""Loading DOCS_DIR: every format as Markdown-ish text, every bad file a reason, never a crash."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import docx
import pytest

from rag.ingest.loaders import (
    MAX_FILE_BYTES,
    SUPPORTED_SUFFIXES,
    DocumentError,
    Skipped,
    discover,
    load_file,
    load_folder,
    load_path,
)
from rag.ingest.splitter import Splitter

SAMPLE_DOCS = Path(__file__).resolve().parents[3] / "docs"

REFUND_MD = """\
---
title: 退费与转班制度
url: https://intranet.example/refund
---

# 退费制度

## 三、退费计算口径

退费金额 = 实付课程费 ×（剩余课时 ÷ 总课时）− 手续费。
"""


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def make_pdf(pages: list[str], *, title: str | None = None) -> bytes:
    """A minimal valid PDF (Helvetica text, one line per page) with a correct xref table."""
    objects: dict[int, bytes] = {3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
    kids = []
    for number, text in enumerate(pages):
        page_id, content_id = 4 + 2 * number, 5 + 2 * number
        kids.append(f"{page_id} 0 R")
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode("latin-1")
        objects[page_id] = (
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % content_id
        )
        objects[content_id] = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream)
    objects[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[2] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>".encode()
    info = ""
    if title is not None:
        info_id = max(objects) + 1
        objects[info_id] = f"<< /Title ({title}) >>".encode("latin-1")
        info = f" /Info {info_id} 0 R"
    out = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, objects[number])
    xref, size = len(out), max(objects) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    out += b"".join(b"%010d 00000 n \n" % offsets[number] for number in range(1, size))
    out += f"trailer\n<< /Size {size} /Root 1 0 R{info} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def make_docx(path: Path) -> Path:
    document = docx.Document()
    document.core_properties.title = ""
    document.add_heading("助教工作手册", level=1)
    document.add_paragraph("本手册供助教日常工作使用。")
    document.add_heading("一、岗位职责", level=2)
    document.add_paragraph("课前 15 分钟到教室。", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    for row, cells in enumerate([("事项", "时限"), ("转班申请", "2 个工作日")]):
        for column, text in enumerate(cells):
            table.cell(row, column).text = text
    path.parent.mkdir(parents=True, exist_ok=True)
    document.save(str(path))
    return path


def skipped_reason(folder: Path, name: str) -> str:
    _, skipped = load_folder(folder)
    reasons = {item.path: item.reason for item in skipped}
    assert name in reasons, reasons
    return reasons[name]


# --- formats -------------------------------------------------------------------------------


def test_markdown_front_matter_gives_title_and_link_and_is_removed(tmp_path: Path) -> None:
    path = write(tmp_path / "policies" / "refund.md", REFUND_MD)
    doc = load_file(path, tmp_path)
    assert doc.source == "policies/refund.md"
    assert doc.title == "退费与转班制度"
    assert doc.link == "https://intranet.example/refund"
    assert doc.text.lstrip().startswith("# 退费制度")
    assert "url:" not in doc.text


def test_title_falls_back_to_first_heading_then_file_stem(tmp_path: Path) -> None:
    headed = write(tmp_path / "a.md", "Intro line\n\n## 小节\n\n# 课程体系\n\n正文。\n")
    plain = write(tmp_path / "notes.txt", "只有正文，没有标题。\n")
    assert load_file(headed, tmp_path).title == "课程体系"
    assert load_file(plain, tmp_path).title == "notes"
    assert load_file(plain, tmp_path).link is None


def test_title_ignores_comment_lines_in_fenced_code(tmp_path: Path) -> None:
    text = (
        "Setup notes.\n\n```bash\n# install the tools\npip install x\n```\n\n# 安装说明\n\n正文。\n"
    )
    assert load_file(write(tmp_path / "setup.md", text), tmp_path).title == "安装说明"


def test_horizontal_rule_at_the_top_is_not_front_matter(tmp_path: Path) -> None:
    path = write(tmp_path / "rule.md", "---\n这是正文第一段。\n---\n第二段。\n")
    assert "这是正文第一段。" in load_file(path, tmp_path).text


def test_quoted_front_matter_values_are_unquoted(tmp_path: Path) -> None:
    path = write(
        tmp_path / "q.markdown", "---\ntitle: \"Leave: a guide\"\nurl: 'https://x'\n---\nBody\n"
    )
    doc = load_file(path, tmp_path)
    assert (doc.title, doc.link) == ("Leave: a guide", "https://x")


def test_gbk_text_is_decoded(tmp_path: Path) -> None:
    text = "退费与转班制度\n流利级课程费 4800 元，教材费 280 元不予退还。每个级别 16 课时。\n" * 3
    path = write(tmp_path / "legacy.txt", text.encode("gbk"))
    assert load_file(path, tmp_path).text == text


def test_utf8_bom_is_stripped_before_front_matter(tmp_path: Path) -> None:
    path = write(tmp_path / "bom.md", b"\xef\xbb\xbf" + REFUND_MD.encode("utf-8"))
    doc = load_file(path, tmp_path)
    assert doc.title == "退费与转班制度"
    assert "\ufeff" not in doc.text


def test_windows_line_endings_become_newlines(tmp_path: Path) -> None:
    path = write(tmp_path / "crlf.md", "# 标题\r\n\r\n第一行\r\n第二行\r\n")
    assert load_file(path, tmp_path).text == "# 标题\n\n第一行\n第二行\n"


def test_html_becomes_markdown_lines_without_scripts(tmp_path: Path) -> None:
    html = """<!doctype html><html><head><title>退费 &amp; 转班</title>
    <style>p { color: red }</style><script>var secret = 1;</script></head><body>
    <h1>退费制度</h1><p>退费按<b>剩余课时</b>计算。</p>
    <h2>三、退费计算口径</h2><ul><li>手续费 5%</li><li><p>最低 50 元</p></li></ul>
    <table><tr><th>级别</th><th>课程费</th></tr><tr><td>流利级</td><td>4800 元</td></tr></table>
    </body></html>"""
    doc = load_file(write(tmp_path / "page.html", html), tmp_path)
    assert doc.title == "退费 & 转班"
    lines = [line for line in doc.text.splitlines() if line]
    assert lines == [
        "# 退费制度",
        "退费按剩余课时计算。",
        "## 三、退费计算口径",
        "- 手续费 5%",
        "- 最低 50 元",
        "级别 | 课程费",
        "流利级 | 4800 元",
    ]


def test_pdf_pages_are_joined_and_metadata_title_used(tmp_path: Path) -> None:
    data = make_pdf(
        ["Refunds are paid within 10 working days.", "The fee is 5 percent."], title="Refund policy"
    )
    doc = load_file(write(tmp_path / "refund.pdf", data), tmp_path)
    assert doc.title == "Refund policy"
    assert "Refunds are paid within 10 working days." in doc.text
    assert "The fee is 5 percent." in doc.text
    assert doc.text.index("Refunds") < doc.text.index("The fee")


def test_pdf_without_metadata_is_titled_by_file_stem(tmp_path: Path) -> None:
    doc = load_file(write(tmp_path / "leave-rules.pdf", make_pdf(["Leave text."])), tmp_path)
    assert doc.title == "leave-rules"


def test_docx_headings_lists_and_tables_become_markdown(tmp_path: Path) -> None:
    doc = load_file(make_docx(tmp_path / "hr" / "manual.docx"), tmp_path)
    assert doc.source == "hr/manual.docx"
    assert doc.title == "助教工作手册"
    lines = [line for line in doc.text.splitlines() if line]
    assert lines == [
        "# 助教工作手册",
        "本手册供助教日常工作使用。",
        "## 一、岗位职责",
        "- 课前 15 分钟到教室。",
        "事项 | 时限",
        "转班申请 | 2 个工作日",
    ]


def test_docx_headings_become_the_chunk_heading_path(tmp_path: Path) -> None:
    doc = load_file(make_docx(tmp_path / "manual.docx"), tmp_path)
    chunks = Splitter().split(doc)
    assert chunks[-1].heading == ("助教工作手册", "一、岗位职责")
    assert "一、岗位职责" not in chunks[-1].text


def test_headings_only_markdown_loads_but_yields_no_chunks(tmp_path: Path) -> None:
    doc = load_file(write(tmp_path / "todo.md", "# 待写\n\n## 一、概述\n"), tmp_path)
    assert doc.title == "待写"
    assert Splitter().split(doc) == []


# --- bad files -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "data", "expected"),
    [
        ("saved.pdf", b"<!DOCTYPE html><html><body>Login</body></html>", "HTML"),
        ("junk.pdf", b"GIF89a not a pdf", "%PDF-"),
        ("broken.pdf", b"%PDF-1.4\n1 0 obj\n<< /Type /Cat", "unreadable PDF"),
        ("binary.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        ("latin1.txt", "Café déjà vu, naïve résumé.".encode("latin-1"), "save it as UTF-8"),
        ("empty.md", b"", "empty file"),
        ("blank.md", b"  \n\n\t\n", "no visible text"),
        ("blank.pdf", make_pdf([""]), "scanned PDF"),
        ("fake.docx", b"this is not a word file", "not a DOCX"),
        ("photo.png", b"\x89PNG\r\n", "unsupported file type .png"),
        ("sheet.xlsx", b"PK\x03\x04", "unsupported file type .xlsx"),
        ("README", b"no extension", "unsupported file type (no extension)"),
    ],
)
def test_bad_file_is_skipped_with_its_reason(
    tmp_path: Path, name: str, data: bytes, expected: str
) -> None:
    write(tmp_path / name, data)
    assert expected in skipped_reason(tmp_path, name)


def test_truncated_docx_is_skipped(tmp_path: Path) -> None:
    data = make_docx(tmp_path / "full.docx").read_bytes()
    (tmp_path / "full.docx").unlink()
    write(tmp_path / "cut.docx", data[: len(data) // 2])
    assert "truncated" in skipped_reason(tmp_path, "cut.docx")


def test_file_over_the_size_cap_is_skipped_without_reading_it(tmp_path: Path) -> None:
    with (tmp_path / "huge.txt").open("wb") as handle:
        handle.truncate(50 * 2**20)  # sparse: no 50 MB written
    reason = skipped_reason(tmp_path, "huge.txt")
    assert reason == f"too large: 50.0 MB (the limit is {MAX_FILE_BYTES // 2**20} MB)"


def test_file_removed_after_discovery_is_skipped(tmp_path: Path) -> None:
    write(tmp_path / "gone.md", "# 临时\n\n正文。\n")
    [path] = discover(tmp_path)
    path.unlink()
    loaded = load_path(path, tmp_path)
    assert loaded.document is None
    assert loaded.skipped == Skipped(
        "gone.md", "file not found (removed, or a broken symbolic link)"
    )


def test_unreadable_file_is_skipped_as_permission_denied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "secret.md", "# 机密\n\n内容。\n")
    real_open = Path.open

    def deny(self: Path, *args: object, **kwargs: object) -> object:
        if self.name == "secret.md":
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(Path, "open", deny)
    assert skipped_reason(tmp_path, "secret.md") == "permission denied"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_skipped_instead_of_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.txt")
    assert skipped_reason(tmp_path, "pipe.txt") == "not a regular file"


def test_broken_symlink_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    assert "broken symbolic link" in skipped_reason(tmp_path, "dangling.md")


def test_one_bad_file_does_not_stop_the_others_and_each_is_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write(tmp_path / "a.md", "# A\n\n第一份。\n")
    write(tmp_path / "b.pdf", b"%PDF-1.4\n1 0 obj\n<< /Type /Cat")  # pypdf would log too
    write(tmp_path / "c.txt", b"\x00\x01\x02")
    write(tmp_path / "d.md", "# D\n\n第二份。\n")
    with caplog.at_level(logging.WARNING):
        documents, skipped = load_folder(tmp_path)
    assert [doc.source for doc in documents] == ["a.md", "d.md"]
    assert [item.path for item in skipped] == ["b.pdf", "c.txt"]
    messages = [record.getMessage() for record in caplog.records]
    assert len(messages) == 2
    assert messages[0].startswith("skipped b.pdf: ")


def test_load_file_raises_document_error_with_the_reason(tmp_path: Path) -> None:
    path = write(tmp_path / "photo.png", b"\x89PNG")
    with pytest.raises(DocumentError, match=r"unsupported file type \.png") as caught:
        load_file(path, tmp_path)
    assert caught.value.reason == "unsupported file type .png"


def test_missing_docs_dir_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"DOCS_DIR .*nope does not exist; set DOCS_DIR"):
        load_folder(tmp_path / "nope")


# --- discovery -----------------------------------------------------------------------------


def test_discovery_is_recursive_and_sorted_by_relative_path(tmp_path: Path) -> None:
    for name in ["z.md", "b/2.md", "a-b.md", "b/1.txt", "a/c/deep.md", "A.md"]:
        write(tmp_path / name, "# t\n\n正文。\n")
    found = [path.relative_to(tmp_path).as_posix() for path in discover(tmp_path)]
    assert found == ["A.md", "a-b.md", "a/c/deep.md", "b/1.txt", "b/2.md", "z.md"]
    documents, _ = load_folder(tmp_path)
    assert [doc.source for doc in documents] == found


def test_hidden_files_and_office_lock_files_are_counted_not_read_nor_warned_about(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write(tmp_path / "visible.md", "# 可见\n\n正文。\n")
    write(tmp_path / ".git" / "notes.md", "# 隐藏\n")
    write(tmp_path / ".git" / "objects" / "ab" / "cdef", b"\x00")
    write(tmp_path / ".DS_Store", b"\x00\x00")
    write(tmp_path / "~$manual.docx", b"\x00lock")
    write(tmp_path / "sub" / ".draft.md", "# 草稿\n")
    with caplog.at_level(logging.WARNING):
        documents, skipped = load_folder(tmp_path)
    assert [doc.source for doc in documents] == ["visible.md"]
    assert skipped == [
        Skipped(".DS_Store", "hidden file"),
        Skipped(".git", "hidden folder", files=2),
        Skipped("sub/.draft.md", "hidden file"),
        Skipped("~$manual.docx", "Office lock file"),
    ]
    assert caplog.records == []


def test_symlink_loop_is_followed_once(tmp_path: Path) -> None:
    write(tmp_path / "policies" / "refund.md", "# 退费\n\n正文。\n")
    (tmp_path / "policies" / "again").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "policies" / "self").symlink_to(tmp_path / "policies", target_is_directory=True)
    found = [path.relative_to(tmp_path).as_posix() for path in discover(tmp_path)]
    assert found == ["policies/refund.md"]


def test_symlinked_file_is_loaded_once_and_the_alias_reported(tmp_path: Path) -> None:
    write(tmp_path / "refund.md", "# 退费\n\n正文。\n")
    (tmp_path / "zz-alias.md").symlink_to(tmp_path / "refund.md")
    documents, skipped = load_folder(tmp_path)
    assert [doc.source for doc in documents] == ["refund.md"]
    assert skipped == [Skipped("zz-alias.md", "same file as refund.md (symbolic link)")]


def test_supported_suffixes_are_the_documented_ones() -> None:
    assert {
        ".md",
        ".markdown",
        ".mdx",
        ".txt",
        ".html",
        ".htm",
        ".pdf",
        ".docx",
    } == SUPPORTED_SUFFIXES


# --- the sample knowledge base -------------------------------------------------------------


def test_sample_docs_load_without_skips_in_both_languages() -> None:
    documents, skipped = load_folder(SAMPLE_DOCS)
    assert skipped == []
    assert len(documents) >= 5
    assert any("/" in doc.source for doc in documents)
    assert any("退费" in doc.text for doc in documents)
    assert any("annual leave" in doc.text.lower() for doc in documents)
    assert all(Splitter().split(doc) for doc in documents)


def test_sample_docs_state_the_course_facts() -> None:
    documents, _ = load_folder(SAMPLE_DOCS)
    text = "\n".join(doc.text for doc in documents)
    courses = next(doc.text for doc in documents if doc.source == "courses.md")
    assert "入门级、进阶级、流利级、商务级" in text
    assert "16 课时，每课时 45 分钟，在八周内完成" in courses
    assert "| 流利级 | 4800 元 | 280 元 |" in courses
    assert "任意级别" in courses
    assert "4800 × 12 ÷ 16 = 3600" in text
    assert "3600 × 5% = 180" in text
    assert "3600 − 180 = 3420" in text
    assert "最低 50 元" in text
    assert "教材费每个级别 280 元，不予退还" in text


def test_sample_docs_say_nothing_about_ielts_or_level_by_level_enrolment() -> None:
    documents, _ = load_folder(SAMPLE_DOCS)
    text = "\n".join(doc.text for doc in documents)
    for absent in ("雅思", "IELTS", "保过"):
        assert absent not in text
    assert "没有必须逐级报读的规定" in text
