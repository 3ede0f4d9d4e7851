"""Freshness benchmark (not a test): how soon a new knowledge base answers, and what a
re-index costs the questions asked meanwhile.

Builds a DOCS_DIR of about ``--passages`` passages from the cmrc2018-trial corpus
(../shared/data/cmrc2018-trial/corpus.jsonl; copies get a numbered title so their passages
are distinct), then runs the real bot process (``python -m bot``, HTTP mode, against the fake
Slack API in its own process, bundled e5 unless ``--embeddings none``) with no index:

- time to first answer: from starting the process to the reply to a question sent as soon as
  ``/healthz`` answers (the lexical index);
- time to full quality: until ``/healthz`` says ``mode: full`` (dense vectors backfilled);
  ``--full-timeout`` bounds the wait and then prints the backfill rate and the projection;
- with ``--reindex N``: once at full quality, the load bench's steady stream of distinct
  questions (``--rate`` per second, answers computed, not cached) for ``--idle-seconds`` with
  nothing else running, then the same stream while N files are rewritten and re-indexed in the
  background (REFRESH_SECONDS=1) until the new version is served: reply p50/p95 for both.

``--work DIR`` keeps the folder, its index and embedding cache: a second run on the same DIR
starts at full quality at once, so ``--reindex`` can be repeated without embedding the whole
corpus again (the revised files are put back first).

``--synthetic-vectors`` (with ``--reindex``) fills the embedding cache with random unit vectors
under e5's identity before the bot starts, so a 10k-passage corpus is at full quality in
seconds instead of embedding for half an hour: what is timed — the rebuild's work over every
passage, the real e5 embedding of the revised passages, each question's real e5 query
embedding and dense search over the whole matrix — is the same; only the answers' dense
ranking is meaningless (no quality is judged here). Time to full quality is then not measured.

    .venv/bin/python -m bench.freshness --passages 1000
    .venv/bin/python -m bench.freshness --passages 10000 --reindex 200 --work /tmp/fresh-10k
    .venv/bin/python -m bench.freshness --work /tmp/fresh-10k --reindex 200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
import numpy as np
from langchain_core.embeddings import Embeddings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.slack_load import (  # noqa: E402
    FakeSlackProcess,
    finals,
    free_port,
    percentile,
    send,
    start_bot,
    stop,
)
from rag.search.build import load_or_build  # noqa: E402
from rag.search.embeddings import E5Embeddings  # noqa: E402

DATA = next(
    (up / "shared" / "data" / "cmrc2018-trial" for up in ROOT.parents if (up / "shared").is_dir()),
    ROOT.parent / "shared" / "data" / "cmrc2018-trial",
)  # ../shared beside the repository (a worktree sits one level deeper)
CORPUS = DATA / "corpus.jsonl"
QUERIES = DATA / "queries.jsonl"
PASSAGES_PER_DOC = 1.55
"""Measured: 91 cmrc2018-trial documents make 140 passages at the shipped chunking."""
REVISION = "\n\n（修订）\n"
REINDEX_BOUND_SECONDS = 3600.0


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
    return [row["question"] for row in rows if row.get("gold_doc_id") and row["question"].strip()]


class Asker:
    """Distinct questions (never a cache hit) to the bot; replies read from the fake Slack."""

    def __init__(self, http: aiohttp.ClientSession, slack: FakeSlackProcess, port: int) -> None:
        self.http, self.slack = http, slack
        self.url = f"http://127.0.0.1:{port}/slack/events"
        self.pool = questions()
        self.asked = 0

    def next_question(self) -> str:
        base = self.pool[self.asked % len(self.pool)]
        round_ = self.asked // len(self.pool)
        self.asked += 1
        return f"{base}（{round_}）" if round_ else base

    async def one(self, within: float = 600.0) -> float:
        """Seconds from sending one mention to its reply."""
        return (await self.stream(rate=0.0, until=None, within=within))[0]

    async def stream(
        self, *, rate: float, until: asyncio.Future[Any] | None, within: float = 120.0
    ) -> list[float]:
        """One question (``rate`` 0), or ``rate`` a second until ``until`` is done: reply times."""
        since = await self.slack.count()
        tasks = [asyncio.create_task(send(self.http, self.url, self.next_question()))]
        started = time.perf_counter()
        while until is not None and not until.done():
            delay = started + len(tasks) / rate - time.perf_counter()
            if delay > 0:
                await asyncio.wait([until], timeout=delay)
                continue
            tasks.append(asyncio.create_task(send(self.http, self.url, self.next_question())))
        sent = await asyncio.gather(*tasks)
        if not await self.slack.until_replies(since, len(sent), within=within):
            raise SystemExit(f"not every question was answered within {within:g} s")
        replies = finals((await self.slack.calls(since))[1])
        return [replies[ts]["at"] - at for ts, at, _, _ in sent]


async def health(http: aiohttp.ClientSession, port: int) -> dict[str, Any]:
    async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
        return dict((await response.json())["index"])


async def run(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="citebot-fresh-"))
    docs = work / "docs"
    if docs.is_dir():
        await asyncio.to_thread(unrevise, docs)
        files = sum(1 for _ in docs.iterdir())
    else:
        files = write_docs(docs, args.passages)
    if args.synthetic_vectors:
        await asyncio.to_thread(synthetic_vectors, docs, work / "index")
    extra = {
        "DOCS_DIR": str(docs),
        "EMBEDDINGS": args.embeddings,
        "REFRESH_SECONDS": "1",
        "MIN_SCORE": "-1000",  # every question answered: the bench times answers, not the gate
        "DIGEST": "off",
    }
    result: dict[str, Any] = {"work": str(work), "files": files}
    async with aiohttp.ClientSession() as http:
        slack = FakeSlackProcess(http)
        await slack.start()
        port = free_port()
        started = time.perf_counter()
        bot = await start_bot(slack, port, work, extra_env=extra, within=args.start_timeout)
        try:
            asker = Asker(http, slack, port)
            latency = await asker.one()
            result["first_answer_s"] = round(time.perf_counter() - started, 1)
            result["first_answer_latency_s"] = round(latency, 2)
            state = await health(http, port)
            result["passages"] = state["passages"]
            result["start_mode"] = state["mode"]
            result.update(await until_full(http, port, started, args.full_timeout))
            if args.synthetic_vectors:
                result["full_quality_s"] = "not measured (--synthetic-vectors)"
            if args.reindex and result.get("full_quality_s") is not None:
                result.update(await reindex(http, port, asker, docs, args))
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
    http: aiohttp.ClientSession, port: int, asker: Asker, docs: Path, args: argparse.Namespace
) -> dict[str, Any]:
    await asker.stream(rate=args.rate, until=_after(5.0))  # warm: jieba, the query embedder
    idle = await asker.stream(rate=args.rate, until=_after(args.idle_seconds))
    before = (await health(http, port))["version"]
    await asyncio.to_thread(revise, docs, args.reindex)
    revised = time.perf_counter()
    swapped = asyncio.ensure_future(_until_version_changes(http, port, before))
    busy = await asker.stream(rate=args.rate, until=swapped)
    state = await health(http, port)
    return {
        "rate_per_s": args.rate,
        "idle_questions": len(idle),
        "idle_p50_ms": _ms(percentile(idle, 0.5)),
        "idle_p95_ms": _ms(percentile(idle, 0.95)),
        "reindex_files": args.reindex,
        "reindex_s": round(swapped.result() - revised, 1),
        "reindex_refresh_s": state["last_refresh"]["seconds"],
        "reindex_questions": len(busy),
        "reindex_p50_ms": _ms(percentile(busy, 0.5)),
        "reindex_p95_ms": _ms(percentile(busy, 0.95)),
    }


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _after(seconds: float) -> asyncio.Future[None]:
    return asyncio.ensure_future(asyncio.sleep(seconds))


async def _until_version_changes(http: aiohttp.ClientSession, port: int, before: str) -> float:
    deadline = time.perf_counter() + REINDEX_BOUND_SECONDS
    while (await health(http, port))["version"] == before:
        if time.perf_counter() > deadline:
            raise SystemExit(f"no new index within {REINDEX_BOUND_SECONDS:g} s")
        await asyncio.sleep(0.2)
    return time.perf_counter()


class RandomE5(Embeddings):
    """Random unit vectors under the bundled e5's identity (seeded: the same every run)."""

    identity = E5Embeddings.identity

    def __init__(self) -> None:
        self.rng = np.random.default_rng(7)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        vectors = self.rng.standard_normal((len(texts), 384)).astype(np.float32)
        unit: list[list[float]] = (
            vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        ).tolist()
        return unit

    def embed_query(self, text: str) -> list[float]:
        raise NotImplementedError("only the cache is filled with these")


def synthetic_vectors(docs: Path, index_dir: Path) -> None:
    load_or_build(docs, index_dir, embeddings=RandomE5())


def revise(docs: Path, files: int) -> None:
    for path in sorted(docs.iterdir())[:files]:
        path.write_text(path.read_text(encoding="utf-8") + REVISION, encoding="utf-8")


def unrevise(docs: Path) -> None:
    """Put a kept folder back as written: the next run's re-index embeds the same passages."""
    for path in docs.iterdir():
        text = path.read_text(encoding="utf-8")
        if text.endswith(REVISION):
            path.write_text(text.removesuffix(REVISION), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passages", type=int, default=1000)
    parser.add_argument("--embeddings", default="e5", choices=["e5", "none"])
    parser.add_argument("--work", help="keep (and reuse) the folder, index and embedding cache")
    parser.add_argument("--start-timeout", type=float, default=300.0, help="for /healthz")
    parser.add_argument("--full-timeout", type=float, default=7200.0)
    parser.add_argument("--reindex", type=int, default=0, help="files to rewrite once at full")
    parser.add_argument("--rate", type=float, default=2.0, help="questions/s around a re-index")
    parser.add_argument("--idle-seconds", type=float, default=60.0)
    parser.add_argument(
        "--synthetic-vectors", action="store_true", help="random cached vectors (see above)"
    )
    args = parser.parse_args()
    if not (0 < args.passages <= 100_000) or not (0 < args.rate <= 50):
        raise SystemExit("keep it bounded: --passages 1..100000, --rate 0..50")
    print(json.dumps(asyncio.run(run(args)), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
