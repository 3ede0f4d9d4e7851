"""A document's standing as it states it: front matter, page state, first-line notices."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from rag.ingest.lifecycle import iso_date, read_lifecycle
from rag.ingest.loaders import load_file
from rag.ingest.markdown import read_markdown
from rag.lifecycle import CURRENT, Lifecycle

JULY_2024 = 1_720_000_000.0  # 2024-07-03 UTC


def read(text: str, *, title: str = "", file_time: float | None = None) -> Lifecycle:
    meta, body = read_markdown(text)
    return read_lifecycle(meta, body, title=title, file_time=file_time)


def test_a_document_that_says_nothing_is_current_and_dated_by_its_file() -> None:
    life = read("# 年假\n\n年假 5 天。\n", file_time=JULY_2024)
    assert life == Lifecycle(updated="2024-07-03", dated=False)
    assert life.key == ""  # nothing stated: its passages hash as before
    assert read("# 年假\n\n年假 5 天。\n") == CURRENT


def test_front_matter_keys_are_read() -> None:
    life = read(
        "---\nstatus: superseded\nsuperseded_by: travel/2025.md\neffective: 2023-03-01\n"
        "expires: 2024-12-31\nupdated: 2023-02-20\n---\n# 差旅\n\n住宿 450 元。\n",
        file_time=JULY_2024,
    )
    assert life == Lifecycle(
        status="superseded",
        superseded_by="travel/2025.md",
        effective="2023-03-01",
        expires="2024-12-31",
        updated="2023-02-20",
        dated=True,
    )


@pytest.mark.parametrize(
    ("front", "status"),
    [
        ("status: Draft", "draft"),
        ("status: deprecated", "deprecated"),
        ("status: archived", "archived"),
        ("status: obsolete", "deprecated"),
        ("status: 征求意见稿", "draft"),
        ("status: active", "current"),
        ("draft: true", "draft"),  # Hugo and Jekyll
        ("archived: true", "archived"),  # a wiki page exported in the archived state
        ("status: something-else", "current"),
    ],
)
def test_status_and_its_usual_spellings(front: str, status: str) -> None:
    assert read(f"---\n{front}\n---\n# T\n\ntext\n").status == status


def test_a_named_successor_says_superseded() -> None:
    assert read("---\nsuperseded_by: Travel Policy 2025\n---\n# T\n\ntext\n").status == (
        "superseded"
    )


def test_a_synced_pages_modified_time_is_its_updated_date() -> None:
    life = read("---\nurl: https://wiki/x\nmodified: 2021-04-12T08:30:00Z\n---\n# T\n\ntext\n")
    assert (life.updated, life.dated) == ("2021-04-12", True)


@pytest.mark.parametrize(
    ("written", "iso"),
    [
        ("2025-03-01", "2025-03-01"),
        ("2025/3/1", "2025-03-01"),
        ("2025年3月1日", "2025-03-01"),
        ("2025-03-01T10:00:00+08:00", "2025-03-01"),
        ("next spring", ""),
        ("2025-02-30", ""),
    ],
)
def test_dates_are_read_as_people_write_them(written: str, iso: str) -> None:
    assert iso_date(written) == iso


@pytest.mark.parametrize(
    ("first_line", "status", "successor", "expires"),
    [
        ("本办法已被《加班与调休管理办法》取代。", "superseded", "加班与调休管理办法", ""),
        ("> **注意：本制度已废止。**", "deprecated", "", ""),
        ("本页已归档。", "archived", "", ""),
        ("This policy was replaced by the Access Control Standard.", "superseded",
         "Access Control Standard", ""),
        ("This page has been deprecated.", "deprecated", "", ""),
        ("Deprecated: use the new VPN.", "deprecated", "", ""),
        # in force until the day before it stops
        ("本制度自2024年7月1日起废止。", "current", "", "2024-06-30"),
    ],
)  # fmt: skip
def test_first_line_notices(first_line: str, status: str, successor: str, expires: str) -> None:
    life = read(f"# 旧规定\n\n{first_line}\n\n## 一、规定\n\n每月 200 元。\n")
    assert (life.status, life.superseded_by, life.expires) == (status, successor, expires)
    assert life.notice


@pytest.mark.parametrize(
    "first_line",
    [
        "本办法自 2025 年 1 月 1 日起施行，原《差旅费报销办法（2023版）》同时废止。",
        "原《加班管理办法》已被本办法取代。",
        "The 2023 travel policy has been replaced by this one.",
        "Our old VPN was deprecated last year; this guide covers the new one.",
    ],
)
def test_a_new_policy_that_mentions_the_old_one_stays_current(first_line: str) -> None:
    assert read(f"# 新规定\n\n{first_line}\n\n每月 300 元。\n").status == "current"


def test_a_notice_further_down_the_page_is_not_the_pages_status() -> None:
    text = "# 报销\n\n每月 300 元。\n\n## 历史\n\n本办法已被《新办法》取代。\n"
    assert read(text).status == "current"


def test_a_title_flag_marks_the_page() -> None:
    assert read("# T\n\ntext\n", title="通讯补贴标准（已废止）").status == "deprecated"


def test_front_matter_wins_over_a_notice() -> None:
    life = read("---\nstatus: archived\n---\n# T\n\nThis policy was replaced by Travel 2025.\n")
    assert (life.status, life.superseded_by) == ("archived", "Travel 2025")


def test_the_loader_gives_every_passage_its_documents_lifecycle(tmp_path: Path) -> None:
    path = tmp_path / "old.md"
    path.write_text("# 旧\n\n本办法已被《新办法》取代。\n\n每月 200 元。\n", "utf-8")
    document = load_file(path, tmp_path)
    assert document.lifecycle.status == "superseded"
    assert document.lifecycle.updated == date.today().isoformat()  # the file was just written


def test_standing_by_date() -> None:
    life = Lifecycle(effective="2025-01-01", expires="2025-06-30")
    assert life.standing(date(2024, 12, 31)) == "upcoming"
    assert life.standing(date(2025, 6, 30)) == "current"  # expires: the last day in force
    assert life.standing(date(2025, 7, 1)) == "lapsed"
    assert life.shown_status(date(2025, 7, 1)) == "expired"
    assert life.ended() == "2025-07-01"
    assert Lifecycle(status="draft").standing(date(2025, 1, 1)) == "draft"
    assert Lifecycle(status="superseded").standing(date(2020, 1, 1)) == "lapsed"


def test_a_lifecycle_survives_its_stored_form() -> None:
    life = Lifecycle("superseded", "x.md", "2023-01-01", "2024-01-01", "2022-12-01", True, "n")
    assert Lifecycle.from_row(life.as_row()) == life
    assert CURRENT.as_row() is None
    assert Lifecycle.from_row(None) == CURRENT
