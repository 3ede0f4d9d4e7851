"""Charts and small HTML pieces of ``rag report --html FILE``, a page that opens offline.

Charts are drawn with matplotlib into inline SVG (no JavaScript, no CDN, no external file);
text in the SVG stays text (``svg.fonttype: none``) so the browser draws it with its own fonts.
Bars are labelled ``#1``, ``#2``… and the table under each chart names them — question texts
and file names can be in any script, and the browser's fonts cover more of them than
matplotlib's. The numbers on the page carry ``data-metric`` attributes and the full report is
embedded as JSON, so a test can check the page against ``--json``.
"""

from __future__ import annotations

import html
import io
from collections.abc import Sequence
from typing import Any

import matplotlib
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

COLOURS = {"answered": "#2e7d32", "refused": "#9e9e9e", "sent_to_review": "#1565c0"}
LABELS = {"answered": "answered", "refused": "refused", "sent_to_review": "sent to review"}

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",
"PingFang SC","Hiragino Sans GB","Microsoft YaHei","Noto Sans CJK SC","Source Han Sans SC",
"WenQuanYi Micro Hei",sans-serif;margin:2rem auto;max-width:60rem;color:#222}
details.long summary{cursor:pointer}p.none{color:#555}td{vertical-align:top;max-width:30rem}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
.numbers{display:flex;gap:1.5rem;flex-wrap:wrap}
.numbers div{background:#f4f4f4;padding:.6rem 1rem;border-radius:.4rem}
.numbers span{display:block;font-size:1.5rem;font-weight:600}
table{border-collapse:collapse;margin-top:.5rem}td,th{padding:.2rem .6rem;text-align:left}
tr:nth-child(even){background:#f7f7f7}figure{margin:0}figcaption{color:#555;font-size:.9rem}
svg{max-width:100%;height:auto}
"""


def _svg(figure: Figure) -> str:
    out = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "citebot"}):
        figure.savefig(out, format="svg", bbox_inches="tight")
    text = out.getvalue()
    return text[text.index("<svg") :]  # inline: without the XML prolog and doctype


def _empty(ax: Any, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what} in this period", ha="center", va="center")
    ax.set_axis_off()


def per_day_chart(per_day: Sequence[dict[str, Any]]) -> str:
    figure = Figure(figsize=(8, 3))
    ax = figure.subplots()
    days = [d["day"][5:] for d in per_day]
    bottom = [0] * len(per_day)
    for verdict, colour in COLOURS.items():
        values = [d[verdict] for d in per_day]
        ax.bar(days, values, bottom=bottom, color=colour, label=LABELS[verdict])
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    ax.set_ylabel("questions")
    ax.legend(loc="upper left", frameon=False)
    ax.tick_params(axis="x", labelrotation=45 if len(days) > 10 else 0)
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(figure)


def bars_chart(counts: Sequence[int], what: str, colour: str) -> str:
    figure = Figure(figsize=(8, 0.6 + 0.3 * max(len(counts), 3)))
    ax = figure.subplots()
    if not counts:
        _empty(ax, what)
        return _svg(figure)
    labels = [f"#{n}" for n in range(1, len(counts) + 1)]
    ax.barh(labels, counts, color=colour)
    ax.invert_yaxis()
    ax.bar_label(ax.containers[0], padding=3)  # type: ignore[arg-type]
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(what)
    ax.spines[["top", "right"]].set_visible(False)
    return _svg(figure)


def metric(name: str, value: object) -> str:
    shown = "–" if value is None else value
    return f'<span data-metric="{html.escape(name)}">{html.escape(str(shown))}</span>'


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def numbers(report: dict[str, Any]) -> str:
    totals = report["totals"]
    rate = totals["cache_hit_rate"]
    cells = [
        ("asked", metric("totals.asked", totals["asked"])),
        ("answered", metric("totals.answered", totals["answered"])),
        ("refused", metric("totals.refused", totals["refused"])),
        ("sent to review", metric("totals.sent_to_review", totals["sent_to_review"])),
        (
            "cache hit rate",
            metric("totals.cache_hit_rate", None if rate is None else f"{rate:.1%}"),
        ),
    ]
    boxes = "".join(f"<div>{label}{value}</div>" for label, value in cells)
    return f'<section class="numbers">{boxes}</section>'
