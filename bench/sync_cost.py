"""What a sync costs: API calls and seconds, first and incremental, against the fake wikis.

    .venv/bin/python -m bench.sync_cost [--pages 600] [--edits 5]

Confluence Cloud: ``--pages`` pages in two spaces, the fake paging 250 a listing call as the
real API does; Feishu: as many docx nodes in one wiki space, 40 of them parents, 50 nodes a
listing call. Each is synced once (everything fetched), then again after ``--edits`` edits
(only those fetched), then once more with nothing changed. Prints calls and seconds (median
of 3 runs for the conversions) so guide/sources.md's cost formulas can be checked.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from rag.http.retry import HttpRetry
from rag.sync.confluence_markdown import storage_to_markdown
from rag.sync.run import Summary
from rag.sync.sources_file import read_sources
from rag.sync.sync_all import sync_sources
from tests.fakes import confluence_api, feishu_wiki
from tests.fakes.confluence_api import FakeConfluence
from tests.fakes.feishu_wiki import FakeFeishuWiki, heading, text

PAGE = (
    "<h2>Scope</h2><p>This policy applies to <strong>all employees</strong>.</p>"
    "<ul><li>Rule one<ul><li>detail</li></ul></li><li>Rule two</li></ul>"
    "<table><tbody><tr><th>Level</th><th>Cap</th></tr><tr><td>Manager</td><td>800</td></tr>"
    "</tbody></table>" * 4
)


async def no_wait(seconds: float) -> None:
    return None


async def sync(toml: str, folder: Path, env: dict[str, str]) -> tuple[Summary, float]:
    (folder / "sources.toml").write_text(toml, "utf-8")
    sources = read_sources(folder / "sources.toml", env)
    assert sources is not None
    started = time.perf_counter()
    [summary] = await sync_sources(
        sources,
        docs_dir=folder / "docs",
        index_dir=folder / "index",
        retry=HttpRetry(sleep=no_wait),
    )
    return summary, time.perf_counter() - started


def line(what: str, summary: Summary, seconds: float) -> str:
    last = summary.last
    counts = f"+{last.added} ~{last.changed} -{last.removed} !{len(last.failed)}"
    return f"  {what:<12} {last.calls:>5} calls  {seconds:6.2f} s  ({counts})"


async def confluence(pages: int, edits: int) -> None:
    async with FakeConfluence(max_limit=250) as wiki:
        ids = [wiki.add_page(("HR", "ENG")[n % 2], f"Page {n}", PAGE) for n in range(pages)]
        toml = (
            f'[sources.wiki]\nkind = "confluence-cloud"\nurl = "{wiki.cloud_url}"\n'
            f'spaces = ["HR", "ENG"]\nemail = "{confluence_api.EMAIL}"\ntoken_env = "T"\n'
        )
        env = {"T": confluence_api.API_TOKEN}
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "docs").mkdir()
            print(f"Confluence Cloud, {pages} pages in 2 spaces, {edits} edits:")
            print(line("first", *await sync(toml, folder, env)))
            for page in ids[:edits]:
                wiki.edit(page, PAGE + "<p>edited</p>")
            print(line("incremental", *await sync(toml, folder, env)))
            print(line("unchanged", *await sync(toml, folder, env)))


async def feishu(pages: int, edits: int) -> None:
    async with FakeFeishuWiki(page_size=50) as wiki:
        space = wiki.add_space("手册")
        blocks = [heading(2, "范围"), text("本制度适用于全体员工。"), text("超过 5000 元需审批。")]
        parents = [wiki.add_doc(space, f"目录 {n}", blocks) for n in range(40)]
        nodes = parents + [
            wiki.add_doc(space, f"页面 {n}", blocks * 3, parent=parents[n % 40])
            for n in range(pages - 40)
        ]
        toml = (
            f'[sources.handbook]\nkind = "feishu-wiki"\nspaces = ["{space}"]\n'
            f'site = "https://acme.feishu.cn"\napi_url = "{wiki.url}"\n'
        )
        env = {"FEISHU_APP_ID": feishu_wiki.APP_ID, "FEISHU_APP_SECRET": feishu_wiki.APP_SECRET}
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "docs").mkdir()
            print(f"Feishu wiki, {pages} docx nodes (40 parents), {edits} edits:")
            print(line("first", *await sync(toml, folder, env)))
            for node in nodes[-edits:]:
                wiki.edit(node, [*blocks, text("已修改")])
            print(line("incremental", *await sync(toml, folder, env)))
            print(line("unchanged", *await sync(toml, folder, env)))


def conversion() -> None:
    storage = PAGE * 25  # a long page: ~100 headings, lists and tables
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        storage_to_markdown(storage)
        runs.append(time.perf_counter() - started)
    size = len(storage.encode()) / 1024
    print(f"storage -> Markdown: {size:.0f} KB page in {statistics.median(runs) * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pages", type=int, default=600)
    parser.add_argument("--edits", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(confluence(args.pages, args.edits))
    asyncio.run(feishu(args.pages, args.edits))
    conversion()


if __name__ == "__main__":
    main()
