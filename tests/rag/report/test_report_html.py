"""``rag report --html`` renders in a real headless Chromium, offline, with --json's numbers.

Chromium (Debian package ``chromium``; scripts/test installs it when missing) loads the page
from a file with the network off, prints the DOM it built, and takes a screenshot. The numbers
the page shows (``data-metric``) must equal the report's JSON; the charts must be there as SVG.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from rag.cli import main
from rag.report.page import render_page
from rag.report.store import record_store
from rag.report.summary import build_report
from tests.rag.report.records_factory import DAY, NOW, asked
from tests.rag.report.test_report_cli import env, keep

__all__ = ["env"]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (scripts/test installs it)"
)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--proxy-server=127.0.0.1:9"]


class Metrics(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}
        self.svgs = 0
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.svgs += tag == "svg"
        self._open = dict(attrs).get("data-metric")

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self.values[self._open] = data
            self._open = None


def chromium(*args: str, cwd: Path) -> str:
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, *FLAGS, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout


def lookup(report: dict[str, Any], path: str) -> Any:
    value: Any = report
    for part in path.split("."):
        if isinstance(value, list):
            value = (
                value[int(part)] if part.isdigit() else next(d for d in value if d["day"] == part)
            )
        else:
            value = value[part]
    return value


def test_html_renders_in_headless_chromium_with_the_json_numbers(
    env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keep(record_store(env, None, retention_days=30), time.time())
    page = tmp_path / "report.html"
    assert main(["report", "--html", str(page)]) == 0
    assert main(["report", "--json"]) == 0
    report = json.loads(capsys.readouterr().out.split("\n", 1)[1])
    assert "http" not in page.read_text(encoding="utf-8").split("<svg", 1)[0]  # nothing fetched

    dom = chromium("--dump-dom", page.as_uri(), cwd=tmp_path)
    metrics = Metrics()
    metrics.feed(dom)
    assert metrics.svgs >= 4  # per day, unanswered, documents, reviews
    assert metrics.values["totals.asked"] == str(report["totals"]["asked"])
    assert metrics.values["totals.cache_hit_rate"] == f"{report['totals']['cache_hit_rate']:.1%}"
    assert metrics.values["unanswered.0.count"] == "2"
    checked = 0
    for name, shown in metrics.values.items():
        if name == "totals.cache_hit_rate":
            continue
        expected = lookup(report, name)
        assert shown == ("–" if expected is None else str(expected)), name
        checked += 1
    assert checked >= 15

    chromium("--screenshot=shot.png", "--window-size=1000,1400", page.as_uri(), cwd=tmp_path)
    shot = (tmp_path / "shot.png").read_bytes()
    assert shot.startswith(b"\x89PNG")
    assert len(shot) > 20_000  # charts and text drawn, not a blank page


def _cjk_font_installed() -> bool:
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    listed = subprocess.run([fc_list, ":lang=zh"], capture_output=True, text=True, check=False)
    return bool(listed.stdout.strip())


def _shot(question: str, tmp_path: Path, name: str) -> bytes:
    report = build_report(
        [asked(question)],
        [],
        since=NOW - DAY,
        until=NOW,
        where="test",
        documents=None,
        embeddings=None,
        votes=[],
    )
    (tmp_path / f"{name}.html").write_text(render_page(report), encoding="utf-8")
    page = (tmp_path / f"{name}.html").as_uri()
    chromium(f"--screenshot={name}.png", "--window-size=1000,1800", page, cwd=tmp_path)
    return (tmp_path / f"{name}.png").read_bytes()


@pytest.mark.skipif(not _cjk_font_installed(), reason="no CJK font (scripts/test installs one)")
def test_a_chinese_question_is_drawn_in_glyphs_not_boxes(tmp_path: Path) -> None:
    """Two pages that differ only in which Chinese characters the question has: drawn with a
    CJK font they look different; drawn as missing-glyph boxes ("tofu") they are the same."""
    # The check itself: characters no font has are boxes, and two such pages are identical.
    assert _shot("\ue000" * 8, tmp_path, "pua-a") == _shot("\ue001" * 8, tmp_path, "pua-b")
    assert _shot("退费怎么计算才合理", tmp_path, "zh-a") != _shot(
        "年假一共能休几天呢", tmp_path, "zh-b"
    )
