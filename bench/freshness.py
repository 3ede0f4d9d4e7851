"""Freshness benchmark (not a test): how soon a new knowledge base answers, and what a
re-index costs the questions asked meanwhile.

Builds a DOCS_DIR of about ``--passages`` passages from the cmrc2018-trial corpus
(../shared/data/cmrc2018-trial/corpus.jsonl; copies get a numbered title so their passages
are distinct), then runs the real bot process (``python -m bot``, HTTP mode, against the fake
Slack API in its own process, bundled e5 unless ``--embeddings none``) with no index:

- time to first answer: from starting the process to the first reply of a question sent as
  soon as ``/healthz`` answers (the lexical index);
- time to full quality: until ``/healthz`` says ``mode: full`` (dense vectors backfilled);
  ``--full-timeout`` bounds the wait and then prints the backfill rate and the projection;
- with ``--reindex N``: once at full quality, the query p95 while idle and while N files are
  rewritten and re-indexed in the background (REFRESH_SECONDS=1), one question every 0.2 s.

    .venv/bin/python bench/freshness.py --passages 1000
    .venv/bin/python bench/freshness.py --passages 10000 --full-timeout 120
    .venv/bin/python bench/freshness.py --passages 1000 --reindex 40
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.slack_load import FakeSlackProcess, free_port, percentile, start_bot, stop  # noqa: E402
from tests.scenarios.harness import envelope, mention, sign  # noqa: E402

DATA = next(
    (up / "shared" / "data" / "cmrc2018-trial" for up in ROOT.parents if (up / "shared").is_dir()),
    ROOT.parent / "shared" / "data" / "cmrc2018-trial",
)  # ../shared beside the repository (a worktree sits one level deeper)
CORPUS = DATA / "corpus.jsonl"
QUERIES = DATA / "queries.jsonl"
PASSAGES_PER_DOC = 1.55
"""Measured: 91 cmrc2018-trial documents make 140 passages at the shipped chunking."""


def write_docs(folder: Path, passages: int) -> int:
    docs = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]
    wanted = max(1, round(passages / PASSAGES_PER_DOC))
    folder.mkdir(parents=True)
    for n in range(wanted):
        doc = docs[n % len(docs)]
        copy = n // len(docs)
        title = doc.get("title") or doc["id"]
        suffix = f"（{copy}）" if copy else ""
        (folder / f"{doc['id']}-{copy}.md").write_text(
            f"# {title}{suffix}\n\n{doc['text']}\n", encoding="utf-8"
        )
    return wanted


def questions() -> list[str]:
    rows = [json.loads(line) for line in QUERIES.read_text(encoding="utf-8").splitlines()]
    return [row["question"] for row in rows if row.get("gold_doc_id")]


async def health(http: aiohttp.ClientSession, port: int) -> dict[str, Any]:
    async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
        return dict((await response.json())["index"])


async def ask(http: aiohttp.ClientSession, slack: FakeSlackProcess, port: int, text: str) -> float:
    """Seconds from sending a mention to its placeholder being replaced."""
    since = await slack.count()
    body = json.dumps(envelope(mention(text))).encode()
    started = time.perf_counter()
    headers = {"Content-Type": "application/json", **sign(body)}
    async with http.post(f"http://127.0.0.1:{port}/slack/events", data=body, headers=headers):
        pass
    if not await slack.until_updates(since, 1, within=120):
        raise SystemExit("no reply within 120 s")
    return time.perf_counter() - started


async def run(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="citebot-fresh-"))
    files = write_docs(work / "docs", args.passages)
    extra = {
        "DOCS_DIR": str(work / "docs"),
        "EMBEDDINGS": args.embeddings,
        "REFRESH_SECONDS": "1",
        "MIN_SCORE": "-5",  # every question answered: the bench times answers, not the gate
    }
    result: dict[str, Any] = {"passages_asked": args.passages, "files": files}
    async with aiohttp.ClientSession() as http:
        slack = FakeSlackProcess(http)
        await slack.start()
        port = free_port()
        started = time.perf_counter()
        bot = await start_bot(slack, port, work, extra_env=extra)
        try:
            pool = questions()
            latency = await ask(http, slack, port, pool[0])
            result["first_answer_s"] = round(time.perf_counter() - started, 1)
            result["first_answer_latency_s"] = round(latency, 2)
            state = await health(http, port)
            result["passages"] = state["passages"]
            result["start_mode"] = state["mode"]
            result.update(await until_full(http, port, started, args.full_timeout))
            if args.reindex and result.get("full_quality_s") is not None:
                result.update(await reindex(http, slack, port, work / "docs", pool, args.reindex))
        finally:
            await stop(bot)
            await slack.stop()
    return result


async def until_full(
    http: aiohttp.ClientSession, port: int, started: float, within: float
) -> dict[str, Any]:
    while True:
        state = await health(http, port)
        elapsed = time.perf_counter() - started
        if state["mode"] == "full":
            return {"full_quality_s": round(elapsed, 1)}
        if elapsed > within:
            done, total = state["backfill"]["done"], state["backfill"]["total"]
            rate = done / elapsed if done else 0.0
            projected = round(total / rate, 0) if rate else None
            return {
                "full_quality_s": None,
                "backfill_done": done,
                "backfill_total": total,
                "backfill_passages_per_s": round(rate, 2),
                "full_quality_projected_s": projected,
            }
        await asyncio.sleep(1.0)


async def reindex(
    http: aiohttp.ClientSession,
    slack: FakeSlackProcess,
    port: int,
    docs: Path,
    pool: list[str],
    files: int,
) -> dict[str, Any]:
    rng = random.Random(7)
    idle = [await ask(http, slack, port, rng.choice(pool)) for _ in range(args_idle)]
    before = (await health(http, port))["version"]
    await asyncio.to_thread(revise, docs, files)
    busy: list[float] = []
    deadline = time.perf_counter() + 900
    while (await health(http, port))["version"] == before and time.perf_counter() < deadline:
        busy.append(await ask(http, slack, port, rng.choice(pool)))
        await asyncio.sleep(0.2)
    return {
        "idle_p50_ms": round(percentile(idle, 0.5) * 1000),
        "idle_p95_ms": round(percentile(idle, 0.95) * 1000),
        "reindex_questions": len(busy),
        "reindex_p50_ms": round(percentile(busy, 0.5) * 1000) if busy else None,
        "reindex_p95_ms": round(percentile(busy, 0.95) * 1000) if busy else None,
    }


args_idle = 40


def revise(docs: Path, files: int) -> None:
    for path in sorted(docs.iterdir())[:files]:
        path.write_text(path.read_text(encoding="utf-8") + "\n\n（修订）\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passages", type=int, default=1000)
    parser.add_argument("--embeddings", default="e5", choices=["e5", "none"])
    parser.add_argument("--full-timeout", type=float, default=1800.0)
    parser.add_argument("--reindex", type=int, default=0, help="files to rewrite once at full")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args)), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
